"""Power states as the Compute API reports them (OS-EXT-STS:power_state)
and the drivers read them: shared by all three processes."""

NOSTATE = 0
RUNNING = 1
PAUSED = 3
SHUTDOWN = 4
CRASHED = 6
SUSPENDED = 7
