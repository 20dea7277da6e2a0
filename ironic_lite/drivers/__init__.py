"""Driver interfaces, hardware types and their fake implementations."""
