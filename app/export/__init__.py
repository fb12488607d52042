"""Stored runs as files to share: Markdown, CSV, JSON and the self-contained HTML report."""
