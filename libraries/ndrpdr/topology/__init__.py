"""Testbeds: topology files (YAML) loaded into typed, validated objects."""
