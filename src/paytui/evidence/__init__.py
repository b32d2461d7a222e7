"""A chargeback's evidence pack (docs/evidence.md): what the reason asks for, the prior charges
that win a card-absent fraud case, and the check before the one submission. No Textual."""
