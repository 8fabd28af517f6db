"""/learn: the ladder's odds, and a simulator of bots against theory."""

import functools
import io
import secrets
import threading
from collections import OrderedDict
from fractions import Fraction

from flask import Blueprint, current_app, make_response, render_template, request, url_for
from flask_babel import gettext

from .. import messages, stats
from ..budgets import PAGES, SIMULATIONS, limited
from ..dice import LoadedDice, SeededDice
from ..errors import IllegalMove
from ..live import LENGTHS, SHARES, STRATEGY_LABELS, value_label
from ..rules import two_dice
from ..rules.bots import at_least
from ..rulesets import DEFAULT, N_, REGISTRY, RULESETS, TITLES
from ..table import LOADINGS, ruleset_name
from .forms import WHOLE

bp = Blueprint("learn", __name__)

SEATS_ON_FORM = 6
UNSEEN = (1, 50)  # the liar's-dice table: dice nobody at the table sees but their owner (ten players of five)
UNSEEN_DEFAULT = 10
ROLLS = (10, 10000)  # the dice rolled one by one for the chart over time (a page of 10,000: about 50 ms)
ROLLS_DEFAULT = 600
_SIMULATING = threading.BoundedSemaphore(1)  # one simulation at a time, whoever asks: a core stays for the tables
# The last runs, by what they played: the page's CSV link asks for the same games again, and a run that
# stopped at its time limit might stop elsewhere the second time.
_RUNS: OrderedDict = OrderedDict()
RUNS_KEPT = 16
SEEDS = 999_999_999  # a run's seed, given or drawn: one that fits the form's field


def _percent(chance) -> str:
    return stats.percent_text(chance, decimals=1)


@bp.get("/learn")
@limited(PAGES, SIMULATIONS, open=True)
def learn():
    """The ladder's odds, and a simulator: N games of bots with chosen strategies, against theory."""
    from .. import simulate  # numpy loads only for the page that uses it

    ladder = [
        {
            "value": value,
            "label": value_label(value),
            "exactly": f"{int(two_dice.probability(value) * 36)}/36",
            "at_least": _percent(stats.at_least(value)),
            "beaten": _percent(stats.beats(value)),
        }
        for value in two_dice.VALUES
    ]
    seats = [s for s in request.args.getlist("seat") if s]
    rules = request.args.get("rules") or DEFAULT
    shown = rules if rules in REGISTRY else DEFAULT  # the form's choice (an unknown one is refused below)
    form = {
        "games": request.args.get("games", "10000" if REGISTRY[shown].batch else "200"),
        "seats": (seats or ["statistician", "honest", "bluffer"]),
        "rules": shown,
        "length": request.args.get("length", "").strip(),
    }
    form["seats"] = (form["seats"] + [""] * SEATS_ON_FORM)[:SEATS_ON_FORM]
    unseen, odds_error = _unseen(request.args.get("unseen") or str(UNSEEN_DEFAULT))
    roll = _rolled(request.args.get("dice"), request.args.get("six") or "fair")
    after, claims_error = _after(request.args.get("after", "62"))
    show = request.args.get("show")
    show = show if show in LEARN_SHOWS else "all"
    context = {
        "show": show,
        "switch": _switch(show),
        "ladder": ladder,
        "unseen": unseen,
        "liars": _liars_odds(unseen),
        "odds_error": odds_error,
        "roll": roll,
        "after": after,
        "after_label": value_label(after) if after is not None else None,
        "claims": _claims(after),
        "claims_error": claims_error,
        "roll_range": ROLLS,
        "loadings": SHARES,
        "form": form,
        "max_games": simulate.MAX_GAMES,
        "strategy_labels": _strategy_labels(),
        "rulesets": list(RULESETS),
        "titles": TITLES,
        "lengths": LENGTHS,
        "length_values": {name: _length_values(REGISTRY[name].game) for name in RULESETS},
    }
    if "games" not in request.args:
        return render_template("learn.html", **context), 400 if odds_error or roll["error"] or claims_error else 200
    try:
        result = _simulated(rules, seats, request.args["games"], request.args.get("seed", ""), form["length"])
    except IllegalMove as error:
        page = render_template("learn.html", error=messages.text(error), **context)
        response = make_response(page, error.status)
        if error.reason == "simulator_busy":  # busy with another's simulation
            response.headers["Retry-After"] = str(error.params["seconds"])
        return response
    if request.args.get("format") == "csv":
        out = io.StringIO()
        simulate.write_csv(result, out)
        return current_app.response_class(out.getvalue(), mimetype="text/csv")
    test = stats.test(result.rolls, REGISTRY[rules].dice)
    # The same games again as CSV: the same seed (and only the form's own fields).
    length = {"length": form["length"]} if form["length"] else {}
    csv_url = url_for(
        "learn.learn", rules=rules, games=result.games, seat=seats, seed=result.seed, format="csv", **length
    )
    context["switch"] = _switch(show, result.seed)
    return render_template(
        "learn.html",
        result=result,
        most=simulate.max_games(rules),
        seconds=int(simulate.ENGINE_SECONDS),
        test=test,
        csv_url=csv_url,
        value_name=str,  # the chart names values by their number: short under a bar
        **context,
    )


LEARN_SHOWS = {  # /learn on a projector shows one of its parts, big, or everything
    "ladder": N_("Odds"),
    "liars": N_("How many?"),
    "claims": N_("Claims"),
    "time": N_("Over time"),
    "simulate": N_("Simulate"),
}


FORM_FIELDS = ("unseen", "after", "dice", "six", "rules", "games", "seat", "seed", "length")  # what /learn's forms ask


def _switch(show: str, seed: int | None = None) -> list[tuple[str, str, str]]:
    """The page's switch: (key, words, URL) of each part and of everything, keeping what the forms asked (and
    the `seed` a simulation drew: the same games in every part)."""
    # Only the forms' own fields: url_for reads a few names (_anchor, _scheme, ...) as its own orders.
    asked = {key: values for key, values in request.args.to_dict(flat=False).items() if key in FORM_FIELDS}
    if seed is not None:
        asked["seed"] = [str(seed)]
    parts = {"all": N_("Everything"), **LEARN_SHOWS}
    return [
        (key, gettext(words), url_for("learn.learn", **asked, **({} if key == "all" else {"show": key})))
        for key, words in parts.items()
    ]


def _unseen(text: str) -> tuple[int, str | None]:
    """The number of unseen dice the form asks about, or the default and the words of its refusal."""
    if WHOLE.fullmatch(text) and UNSEEN[0] <= int(text) <= UNSEEN[1]:
        return int(text), None
    return UNSEEN_DEFAULT, gettext(
        "Dice you cannot see: a whole number from %(low)s to %(high)s.", low=UNSEEN[0], high=UNSEEN[1]
    )


def _after(text: str) -> tuple[int | None, str | None]:
    """The announcement the claims follow (None: the round's first), or 62 and the words of a refusal."""
    if text == "":
        return None, None
    value = two_dice.parse_value(text)
    if value is None or value == two_dice.MAEXCHEN:  # nothing beats Mäxchen: no claim follows it
        return 62, gettext("Choose the announcement before: a value below Mäxchen, or none.")
    return value, None


def _claims(after: int | None) -> list[dict]:
    """Every claim that may follow `after`: a fresh roll's chance to reach it, and the chance it is true."""
    rows = []
    for value in two_dice.VALUES:
        if two_dice.is_higher(value, after):
            true = stats.claim_true(value, after)
            rows.append(
                {
                    "value": value,
                    "label": value_label(value),
                    "reach": _percent(stats.at_least(value)),
                    "true": _percent(true),
                    "odds": f"{true.numerator}/{true.denominator}",
                }
            )
    return rows


def _rolled(count: str | None, six: str) -> dict:
    """The dice rolled one by one for the chart over time (none until asked), or the words of a refusal."""
    shown = {"count": ROLLS_DEFAULT, "six": six, "run": None, "test": None, "error": None}
    if count is None:
        return shown
    if not (WHOLE.fullmatch(count) and ROLLS[0] <= int(count) <= ROLLS[1]):
        error = gettext("Dice: a whole number from %(low)s to %(high)s.", low=ROLLS[0], high=ROLLS[1])
        return {**shown, "error": error}
    if six not in ("fair", *LOADINGS):
        return {**shown, "error": messages.text(IllegalMove("loading", choices=", ".join(("fair", *LOADINGS))))}
    # A demonstration, not a game: a seeded generator (fast), seeded from the system's.
    fair = SeededDice(secrets.randbits(64))
    dice = fair if six == "fair" else LoadedDice(Fraction(six), fair)
    faces = dice.roll(int(count))
    counted = {face: faces.count(face) for face in stats.FACES}
    return {**shown, "count": int(count), "run": stats.running(faces), "test": stats.test(counted, "faces")}


def _liars_odds(unseen: int) -> list[dict]:
    """Lügen and Perudo: P(at least k of the unseen dice count for a face), with jokers and without."""
    wild, plain = Fraction(1, 3), Fraction(1, 6)
    return [
        {
            "k": k,
            "wild": _percent(at_least(k, unseen, wild)),
            "plain": _percent(at_least(k, unseen, plain)),
            # Below 0.1 % either way since the row before: a projector leaves it out (learn.css).
            "nil": k > 1 and at_least(k - 1, unseen, wild) < Fraction(1, 1000),
        }
        for k in range(1, unseen + 1)
    ]


def _length_values(game) -> str:
    """The lengths a rule set allows, as the form's help says them: "3, 5, 7" or "2–30"."""
    option = game.OPTIONS[game.LENGTH]
    return ", ".join(map(str, option.choices)) if option.choices else f"{option.low}–{option.high}"


def _length(game, text: str) -> dict:
    """The game's length the form asks for (points to go out, lives, mats, dice each) as its option; none for
    the rules' own; IllegalMove where the rule set does not allow it."""
    if not text:
        return {}
    value = int(text) if WHOLE.fullmatch(text) and len(text) < 4 else text  # text: refused as no whole number
    return {game.LENGTH: game.OPTIONS[game.LENGTH].check(gettext("Game length"), value)}


def _simulated(rules: str, seats: list[str], games: str, seed: str, length: str = ""):
    """The simulation the form asks for, run off the server's loop; IllegalMove for a bad form or a busy server."""
    from .. import simulate

    game = RULESETS[ruleset_name(rules)]
    options = _length(game, length)
    if not WHOLE.fullmatch(games) or not 1 <= int(games) <= simulate.MAX_GAMES:
        raise IllegalMove("option_range", option=gettext("Games"), low=1, high=simulate.MAX_GAMES)
    asked = int(games)
    games = min(asked, simulate.max_games(rules))  # a game without a batch engine: its own cap, said on the page
    if not game.MIN_PLAYERS <= len(seats) <= SEATS_ON_FORM:
        raise IllegalMove("player_count", code="bad_value", game=game.TITLE, low=game.MIN_PLAYERS, high=SEATS_ON_FORM)
    if any(seat not in _strategy_labels() for seat in seats):
        raise IllegalMove(
            "no_such_strategy",
            strategy=next(s for s in seats if s not in _strategy_labels())[:40],
            choices=", ".join(_strategy_labels()),
        )
    if seed and not (WHOLE.fullmatch(seed) and 0 <= int(seed) <= SEEDS):
        raise IllegalMove("option_range", option=gettext("Seed"), low=0, high=SEEDS)
    seed = int(seed) if seed else secrets.randbelow(SEEDS + 1)
    key = (rules, tuple(seats), tuple(options.items()))
    kept = _RUNS.get((*key, games, seed))
    if kept is not None:
        return kept
    run = functools.partial(simulate.simulate, seats, games, seed, rules_name=rules, options=options)
    if not _SIMULATING.acquire(blocking=False):
        raise IllegalMove("simulator_busy", seconds=5)
    try:
        # numpy works in a thread of its own: the tables go on meanwhile (threading: this is one already).
        if current_app.config["ASYNC_MODE"] == "eventlet":
            from eventlet import tpool

            result = tpool.execute(run)
        elif current_app.config["ASYNC_MODE"] == "gevent":
            import gevent

            result = gevent.get_hub().threadpool.apply(run)
        else:
            result = run()
        result.asked = asked if result.games < asked else None
        _RUNS[(*key, result.games, result.seed)] = result
        while len(_RUNS) > RUNS_KEPT:
            _RUNS.popitem(last=False)
        return result
    finally:
        _SIMULATING.release()


def _strategy_labels() -> dict:
    return {key: gettext(label) for key, label in STRATEGY_LABELS.items()}
