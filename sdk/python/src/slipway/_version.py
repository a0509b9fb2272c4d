# The package's version (pyproject.toml reads it from here). The Slipway API version it targets is
# slipway.API_VERSION, generated from the OpenAPI document's info.version.
__version__ = "0.2.0"
