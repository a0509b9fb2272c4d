# File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.py.
# Do not edit: run scripts/generate.sh BASE_URL (the suite fails when this file differs from what the server serves).
"""Generated code: from the OpenAPI document the models, resources, API version and error codes; from
scripts/templates/client.py the sync and async clients."""
