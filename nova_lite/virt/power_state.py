"""Power states as the Compute API reports them (OS-EXT-STS:power_state)."""

NOSTATE = 0
RUNNING = 1
PAUSED = 3
SHUTDOWN = 4
CRASHED = 6
SUSPENDED = 7
