"""A stand-in for the spacr package holding only spacr.benchmark (the rest
of spaCR pulls torch and a GUI); see tests/spacr_suite/run_suite.py."""
