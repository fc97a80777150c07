"""Plain-text email templates."""

import string

_TEMPLATES = {
    ("invoice.txt", "en"): "Invoice $number\nAmount due: $amount\n",
    ("invoice.txt", "de"): "Rechnung $number\nFaelliger Betrag: $amount\n",
    ("invoice.txt", "fr"): "Facture $number\nMontant du: $amount\n",
    ("receipt.txt", "en"): "Receipt for order $number. Thank you!\n",
}


def render(name: str, locale: str = "en", **values) -> str:
    template = _TEMPLATES.get((name, locale)) or _TEMPLATES[(name, "en")]
    return string.Template(template).substitute(values)


def locales_for(name: str) -> list[str]:
    return sorted(loc for (tpl, loc) in _TEMPLATES if tpl == name)


def has_template(name: str, locale: str) -> bool:
    return (name, locale) in _TEMPLATES


def default_locale() -> str:
    return "en"
