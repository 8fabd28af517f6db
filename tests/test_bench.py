"""The benchmarks measure what they claim to.

The load benchmark's `browser` client must do what the room page's scripts (static/live.js)
do; if they and the client drift apart, these fail. The simulator benchmark's floor must play
the real engine's games.
"""

import importlib.util
import math
import random
import re

from tests.conftest import ROOT


def _bench(name):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


load = _bench("load")
PAGE = "".join((ROOT / "static" / name).read_text() for name in ("live.js", "table.js"))  # the room page's protocol


def test_the_browser_client_follows_the_page_script():
    # A seat's page (not the board, which watches) authenticates by its room and the cookie.
    assert re.search(r"M\.connect\(BOARD \? \{[^}]*\} : \{ (\w+): ROOM \}\)", PAGE)[1] == load.PAGE_AUTH_KEY
    assert f'socket.on("{load.PARTS_EVENT}", (message) => applyParts(message.html, message.reset, swapped))' in PAGE
    assert 'const ACT_URL = "/r/" + ROOM + "/act";' in PAGE and load.ACT_PATH == "/r/{code}/act"
    assert f'socket.timeout(FORM_WAIT).emit("{load.FORM_EVENT}", fields,' in PAGE  # a form over the open socket
    assert f'xhr.getResponseHeader("{load.TOAST_HEADER}")' in PAGE
    # The page keeps an area only when its mark (version, presence count) is newer; so does the client.
    assert "const newer = a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);" in PAGE


def test_the_browser_client_reads_the_parts_the_server_renders(app, rooms):
    from maxchen import live

    host = rooms.create("Ann")
    rooms.join(host["code"], "Ben")
    room = rooms.load(host["code"])
    with app.app_context():
        html = "".join(live.page_parts(room, host["player"], {}, 7, "en").values())
    found = [(m[1], m[2], m[3]) for m in load.AREA.finditer(html)]
    assert found == [("players", "1", "7"), ("table", "1", "7"), ("controls", "1", None)]
    assert load.CUP.search(html)


def test_a_short_run_of_both_kinds_against_the_real_server():
    rows = load.main(["--kind", "both", "--players", "12", "--seconds", "3", "--client-processes", "1"])
    rows += load.main(["--kind", "browser-http", "--players", "6", "--seconds", "2", "--client-processes", "1"])
    assert [(row["kind"], row["players"], row["errors"]) for row in rows] == [
        ("browser", 12, 0),
        ("bot", 12, 0),
        ("browser-http", 6, 0),
    ]
    assert all(not math.isnan(row["p95"]) and row["actions/s"] > 0 for row in rows)


def test_a_short_run_on_two_processes_and_redis(redis_url):
    """Scaled out: every room's players on both processes in turn, every screen reaching every version."""
    rows = load.main(
        ["--kind", "browser", "--players", "12", "--seconds", "3", "--client-processes", "1"]
        + ["--processes", "2", "--redis", redis_url, "--idle-processes", "1"]
    )
    assert [(row["kind"], row["players"], row["errors"]) for row in rows] == [("browser", 12, 0)]
    assert all(not math.isnan(row["p95"]) and row["actions/s"] > 0 for row in rows)


def test_the_simulators_floor_plays_the_real_engines_games():
    """The floor is a yardstick only if it plays the same game: the same dice, the same end, game by game."""
    from maxchen import simulate

    floor_game = _bench("simulate").floor_game
    for seed in range(300):
        game = simulate.play_engine(["honest"] * 3, random.Random(seed))
        standing = [seat["points"] for seat in game["standing"]]
        assert floor_game(random.Random(seed)) == (game["seat"], game["rounds"], standing), seed


def test_the_light_load_bench_times_ours_and_the_floor_in_turns():
    """bench/light.py: one room of three on app.py, then on the bare relay (bench/floor.py), each action seen
    by the two others."""
    rows = _bench("light").main(["--actions", "6", "--rounds", "1"])
    assert len(rows) == 1 and all(p50 > 0 and not math.isnan(p50) for p50 in rows[0])


def test_the_render_bench_draws_every_area_of_a_room_in_play():
    timings = _bench("render").main(["--renders", "2"])
    assert set(timings) == {"players", "table", "controls"} and all(t > 0 for t in timings.values())


def test_the_lesson_bench_times_real_games_and_counts_the_hunt_from_its_start():
    lesson = _bench("lesson")
    games = lesson.pool("maexchen", 6, seed=1)
    played = games["fair"][0]
    # A game's dice are the engine's rolls; its rounds end at times and dice counts that only grow.
    assert len(played["faces"]) >= 10 and played["seconds"] > 60
    assert played["rounds"] == sorted(played["rounds"]) and played["rounds"][-1][1] <= len(played["faces"])
    assert sum(f == 6 for g in games["loaded"] for f in g["faces"]) > sum(
        f == 6 for g in games["fair"] for f in g["faces"]
    )
    rng = random.Random(2)
    looks = lesson.table_looks(games, rng, loaded=True, hunt_at=lesson.HUNT_AT, fresh=True)
    times = [t for t, *_ in looks]
    assert times == sorted(times) and times[-1] >= lesson.LESSON  # the countdown's game ends after zero
    before = [hunted for t, _, hunted in looks if t <= lesson.HUNT_AT]
    assert before and all(h == [] for h in before)  # nothing of the games before the hunt counts
    assert looks[-1][2] and len(looks[-1][2]) < len(looks[-1][1])
    result = lesson.lesson(games, rng, lesson.HUNT_AT, fresh=True)
    assert {"board_alarm", "hunt_alarm", "found", "found_end", "loaded_dice"} <= set(result)
    # The board's line and the bench's check of it speak of the same count of dice.
    assert abs(lesson.power_at(283, 2000, 1) - 0.804) < 0.03
