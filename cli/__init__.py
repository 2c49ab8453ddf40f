"""The ``fivehundred`` command line: each command parses arguments and calls one library function."""
