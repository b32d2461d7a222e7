"""paytui: a keyboard-driven terminal dashboard for a card and bank-account payment service."""

__version__ = "0.1.0"
