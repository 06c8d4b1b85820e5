"""Background jobs: one runner for every job kind (`runner`), the columns every job row has (`models`),
and what a task does with a message for a job another worker holds (`redelivery`). Imports no feature."""
