"""Widgets the pages share."""
