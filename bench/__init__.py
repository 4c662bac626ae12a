"""Benchmark: the whole program under mocks against Pulumi's own cost of the same registrations (see README.md)."""
