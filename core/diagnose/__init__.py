"""Diagnosis: rules that turn a machine's facts into findings a hobbyist can act on."""
