"""The turn pipeline, prompt building and consolidation."""
