"""Background jobs: what every job kind shares (redelivery, staleness); each feature keeps its own tasks."""
