"""What every nova_lite process (API, conductor, compute agent) shares:
the states, and the instance record helpers all three use."""
