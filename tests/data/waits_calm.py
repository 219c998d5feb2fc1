"""py-waits' calm scenario: tests/data/waits.py with nothing deadlocked (see there)."""
import waits

waits.main("calm")
