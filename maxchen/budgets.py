"""The budgets of the server's doors, and how a route declares its own. Imports nothing of the app.

Each budget's default is here; the environment (or the app's config) may set
another (`maxchen/throttle.py` says what each one counts and enforces them).
"""

LIMITS = {
    "MAXCHEN_LIMIT_FAILURES": "60 per minute; 300 per hour",
    "MAXCHEN_LIMIT_PAGES": "20 per second; 600 per minute",
    "MAXCHEN_LIMIT_SIMULATIONS": "10 per minute; 100 per hour",
    "MAXCHEN_LIMIT_ROOMS": "600 per minute; 3000 per hour",
    "MAXCHEN_LIMIT_CLASS_JOINS": "30 per minute; 300 per hour",
    "MAXCHEN_LIMIT_DOWNLOADS": "10 per minute; 100 per hour",
    "MAXCHEN_LIMIT_EVENTS": "20 per second; 600 per minute",
    "MAXCHEN_LIMIT_REACTIONS": "3 per 5 seconds; 20 per minute",
    "MAXCHEN_LIMIT_ADDRESS_REACTIONS": "12 per 5 seconds; 60 per minute",
    "MAXCHEN_LIMIT_PACKETS": "40 per second",
    "MAXCHEN_LIMIT_ADDRESS_PACKETS": "2000 per second",
}

PAGES, ROOMS, CLASS_JOINS = "MAXCHEN_LIMIT_PAGES", "MAXCHEN_LIMIT_ROOMS", "MAXCHEN_LIMIT_CLASS_JOINS"
DOWNLOADS, SIMULATIONS = "MAXCHEN_LIMIT_DOWNLOADS", "MAXCHEN_LIMIT_SIMULATIONS"


def limited(*budgets: str, open: bool = False):  # noqa: A002 - the word the routes read
    """Declare a route's budgets (keys of LIMITS) where the route is declared; none: the failure budget only.

    `open`: a page that finds nothing to guess (the home page, the rules, making
    a room): its answers never count against the failure budget. Every route
    declares itself, or the app does not start (`Throttle`): a new route
    cannot silently go without a limit.
    """
    for budget in budgets:
        if budget not in LIMITS:
            raise ValueError(f"no limit {budget!r}")

    def declare(view):
        view.maxchen_limits = (budgets, open)
        return view

    return declare
