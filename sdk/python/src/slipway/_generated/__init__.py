"""Code generated from /openapi.json by scripts/generate.sh; do not edit."""
