"""The step's timed phases, by index: the order of their figures in a step line and of the
(phase, start, end) pairs a device clock records (clocks.py)."""
H2D, FORWARD, BACKWARD, OPTIMIZER = 0, 1, 2, 3
