"""Simulated conversations: scenarios (how skills really behave, who the users are), a user simulator, the driver.

Imports `engine.runtime` and below (it talks to the orchestrators through their turn contract); never learning.
"""
