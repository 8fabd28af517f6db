"""The pages and htmx partials through Flask's test client."""

import csv
import dataclasses
import io
import json
import re
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from maxchen import fair

ROOT = Path(__file__).resolve().parent.parent
HX = {"HX-Request": "true"}


def make_seat(app, code=None, name="Ann"):
    """A browser (its own cookie jar) that created or joined a room by the forms."""
    browser = app.test_client()
    if code is None:
        response = browser.post("/rooms", data={"name": name, "rules": "maexchen"})
    else:
        response = browser.post("/join", data={"code": code.lower(), "name": name})
    assert response.status_code == 303, response.data
    code = response.headers["Location"].rsplit("/", 1)[1]
    return browser, code


def act(browser, code, **form):
    return browser.post(f"/r/{code}/act", data=form, headers=HX)


def version(browser, code, area="controls"):
    """The version a page's area shows (its controls: what its actions send)."""
    html = browser.get(f"/r/{code}").get_data(as_text=True)
    return re.search(rf'id="{area}"[^>]*data-version="(\d+)"', html)[1]


@pytest.fixture
def lobby(app):
    ann, code = make_seat(app)
    ben, _ = make_seat(app, code, "Ben")
    return code, ann, ben


def test_home_offers_create_and_join(client):
    html = client.get("/").get_data(as_text=True)
    assert 'action="/rooms"' in html and 'action="/join"' in html
    assert "Mäxchen" in html
    assert "cdn" not in html.lower() and "https://" not in html


def test_home_leads_back_to_the_tables_this_browser_sits_at(app, lobby):
    code, ann, ben = lobby
    assert "Back to your table" not in app.test_client().get("/").get_data(as_text=True)  # a new visitor
    _, other = make_seat(app, name="Cem")
    ben.post("/join", data={"code": other, "name": "Ben"})
    act(ann, code, action="start", version=version(ann, code))
    html = ben.get("/").get_data(as_text=True)
    # Newest first, each with its game, its phase and who sits there; a link into the room.
    assert html.index(f'href="/r/{other}"') < html.index(f'href="/r/{code}"')
    back = html[html.index(f'href="/r/{code}"') :]
    assert "Mäxchen · playing" in back[: back.index("</a>")] and "<bdi>Ann</bdi>, <bdi>Ben</bdi>" in back
    # A room left is no longer a way back.
    act(ben, other, action="leave", version=version(ben, other))
    assert f'href="/r/{other}"' not in ben.get("/").get_data(as_text=True)


def test_create_by_form_opens_the_lobby_with_code_link_and_qr(app):
    browser, code = make_seat(app)
    html = browser.get(f"/r/{code}").get_data(as_text=True)
    assert '<p class="big-code"' in html and code in html
    assert f"http://localhost/r/{code}" in html
    assert "<svg" in html  # the QR code, inline
    assert "Start the game" not in html  # alone: nobody to play with


def test_a_link_made_on_the_servers_own_computer_is_the_one_phones_reach(rooms):
    """A teacher opens http://127.0.0.1:5000/ on the laptop: the room's link, its QR code, the API's url and
    a class's join link name the LAN address phones open (a phone's own page keeps the address it used)."""
    from maxchen.server import create_app

    lan = "https://192.168.1.20:5000/"
    app = create_app({"TESTING": True, "ROOMS": rooms, "SECRET_KEY": "test", "SHARE_URL": lan})
    laptop = app.test_client()
    here = {"base_url": "http://127.0.0.1:5000"}
    made = laptop.post("/rooms", data={"name": "Ann", "rules": "maexchen"}, **here)
    code = made.headers["Location"].rsplit("/", 1)[1]
    html = laptop.get(f"/r/{code}", **here).get_data(as_text=True)
    assert f'href="{lan}r/{code}"' in html and "http://127.0.0.1:5000/r/" not in html
    assert laptop.post("/api/rooms", json={"name": "Ben"}, **here).json["url"].startswith(lan + "r/")
    desk = laptop.post("/classes", data={"rules": "maexchen"}, follow_redirects=True, **here)
    klass = re.search(r'id="join-link">([^<]+)<', desk.get_data(as_text=True)).group(1)
    assert klass.startswith(lan + "c/")
    phone = app.test_client().post("/api/rooms", json={"name": "Cem"}, base_url="https://192.168.1.20:5000")
    assert phone.json["url"].startswith(lan + "r/")
    other = app.test_client().post("/api/rooms", json={"name": "Dan"}, base_url="https://maxchen.example")
    assert other.json["url"].startswith("https://maxchen.example/r/")


def test_a_room_link_without_a_seat_asks_only_for_a_name(app, lobby):
    code, ann, ben = lobby
    stranger = app.test_client()
    html = stranger.get(f"/r/{code.lower()}").get_data(as_text=True)
    assert f'action="/r/{code}/join"' in html
    assert "Take a seat" in html
    response = stranger.post(f"/r/{code}/join", data={"name": "Cem"})
    assert response.status_code == 303
    assert "Cem" in stranger.get(f"/r/{code}").get_data(as_text=True)


def test_a_full_table_offers_the_first_free_seat_to_who_found_it_full(app, lobby):
    """A newcomer at a full table waits on its page (an htmx poll of the room link), which offers them the
    first seat that comes free, with the form to take it."""
    code, ann, ben = lobby
    for name in ("Cem", "Dora", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jana"):
        make_seat(app, code, name)
    late = app.test_client()
    refused = late.post(f"/r/{code}/join", data={"name": "Kai"})
    html = refused.get_data(as_text=True)
    assert refused.status_code == 409 and "The room is full" in html
    assert 'id="seat-offer"' in html and 'hx-trigger="every 5s"' in html and "Take a seat" not in html
    assert f'hx-get="/r/{code}?offer=1"' in html and "vendor/htmx.min.js" in html
    polled = late.get(f"/r/{code}?offer=1").get_data(as_text=True)  # still full: it keeps asking
    assert 'hx-trigger="every 5s"' in polled and "A seat is free" not in polled
    act(ben, code, action="leave")
    offered = late.get(f"/r/{code}?offer=1").get_data(as_text=True)
    assert "A seat is free: take it." in offered and "Take a seat" in offered and "every 5s" not in offered
    assert late.post(f"/r/{code}/join", data={"name": "Kai"}).status_code == 303
    # Seated now (another tab took the seat): a waiting page's next ask goes to the table, not to nothing.
    asked = late.get(f"/r/{code}?offer=1", headers=HX)
    assert asked.status_code == 200 and asked.headers["HX-Redirect"] == f"/r/{code}"


def test_a_waiting_page_of_a_room_gone_goes_to_see_and_costs_no_failures(app):
    """The full table empties and its room is dropped: the waiting page's ask is told to go to the room's
    address (which says it is gone), once, not answered 404 every 5 s (each a failure of the address)."""
    gone = app.test_client()
    for _ in range(80):  # more than a minute of failures' budget
        asked = gone.get("/r/ABCDE?offer=1", headers=HX)
        assert asked.status_code == 200 and asked.headers["HX-Redirect"] == "/r/ABCDE"
    assert gone.get("/").status_code == 200


@pytest.mark.parametrize(
    ("form", "status", "message"),
    [
        ({"code": "ZZZZZ", "name": "Ann"}, 404, "There is no room with that code."),
        ({"code": "K0O1I", "name": "Ann"}, 404, "There is no room with that code."),
        ({"code": "{code}", "name": ""}, 400, "Enter a name of 1 to 20 characters."),
        ({"code": "{code}", "name": "x" * 21}, 400, "Enter a name of 1 to 20 characters."),
        ({"code": "{code}", "name": "ANN"}, 409, "Someone here is already called \u2068Ann\u2069."),
    ],
)
def test_joining_errors_are_clear_and_change_nothing(app, lobby, form, status, message):
    code, ann, ben = lobby
    before = version(ann, code, "table")
    response = app.test_client().post("/join", data={k: v.format(code=code) for k, v in form.items()})
    assert response.status_code == status
    assert message in response.get_data(as_text=True)
    assert version(ann, code, "table") == before


def test_unknown_rooms_show_a_page_not_a_trace(client):
    response = client.get("/r/ZZZZZ")
    assert response.status_code == 404
    assert "No such room" in response.get_data(as_text=True)
    assert client.get("/r/not-a-code").status_code == 404


def test_host_starts_by_htmx_and_gets_every_area_back(lobby, dice):
    code, ann, ben = lobby
    response = act(ann, code, action="start", version=version(ann, code))
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert re.findall(r'<(?:div|section) id="(\w+)"[^>]*data-version="(\d+)"', html) == [
        ("players", "2"),
        ("table", "2"),
        ("controls", "2"),
    ]
    assert 'data-phase="playing"' in html


def test_errors_come_back_as_a_toast_and_change_nothing(lobby):
    code, ann, ben = lobby
    before = version(ann, code)
    table = version(ann, code, "table")
    response = act(ben, code, action="start", version=before)
    assert response.headers["X-Maxchen-Toast"] == "1"
    assert "Only the host can do that." in response.get_data(as_text=True)
    stale = act(ann, code, action="start", version=str(int(before) - 1))
    assert "The table has moved on" in stale.get_data(as_text=True)
    bad = act(ann, code, action="start", version="x")
    assert "version must be a whole number" in bad.get_data(as_text=True)
    assert version(ann, code, "table") == table


def test_host_reorders_and_removes_in_the_lobby(app, lobby):
    code, ann, ben = lobby
    cem, _ = make_seat(app, code, "Cem")
    view = app.extensions["maxchen.rooms"].view
    ann_id = app.extensions["maxchen.rooms"].authenticate(code, _token(ann, code))
    cem_id = next(p["id"] for p in view(code, ann_id)["players"] if p["name"] == "Cem")
    act(ann, code, action="seat", player=cem_id, seat="0", version=version(ann, code))
    assert [p["name"] for p in view(code, ann_id)["players"]] == ["Cem", "Ann", "Ben"]
    act(ann, code, action="remove", player=cem_id, version=version(ann, code))
    assert [p["name"] for p in view(code, ann_id)["players"]] == ["Ann", "Ben"]
    # Cem's page now sends him back to the name form.
    gone = cem.get(f"/r/{code}/parts", headers=HX)
    assert gone.headers["HX-Redirect"] == f"/r/{code}?gone=seat"
    form = cem.get(gone.headers["HX-Redirect"]).get_data(as_text=True)
    assert "This browser no longer has a seat in this room." in form and 'name="name"' in form
    # The form tells a newcomer whose table it is, the game and who sits there.
    assert "Ann</bdi>&#39;s table" in form or "Ann</bdi>'s table" in form
    assert "2 players:" in form and "<bdi>Ben</bdi>" in form


def test_leaving_lands_on_the_form_with_a_word_about_it(app, lobby):
    code, ann, ben = lobby
    left = act(ben, code, action="leave", version=version(ben, code))
    assert left.headers["HX-Redirect"] == f"/r/{code}?gone=left"
    assert "You left the room." in ben.get(left.headers["HX-Redirect"]).get_data(as_text=True)
    assert "You left the room." not in ben.get(f"/r/{code}?gone=nonsense").get_data(as_text=True)


def _token(browser, code):
    return _seats(browser)[code]


def test_partials_never_hold_another_players_dice(app, lobby, dice):
    code, ann, ben = lobby
    dice.add((6, 3))
    act(ann, code, action="start", version=version(ann, code))
    ann_id = app.extensions["maxchen.rooms"].authenticate(code, _token(ann, code))
    app.extensions["maxchen.rooms"].act(code, ann_id, {"action": "shake"})
    for page in (ben.get(f"/r/{code}"), ben.get(f"/r/{code}/parts")):
        html = page.get_data(as_text=True)
        assert "face-6" not in html and "face-3" not in html
        assert "[6, 3]" not in html
        assert cup_view(html)["dice"] is None
    # Ann's own page carries her dice for her cup, in her view only.
    assert cup_view(ann.get(f"/r/{code}").get_data(as_text=True))["dice"] == [6, 3]


def test_every_page_gets_the_commit_before_the_shake_and_the_server_seed_only_with_the_dice(app, lobby, dice):
    code, ann, ben = lobby
    rooms = app.extensions["maxchen.rooms"]
    board, api = app.test_client(), app.test_client()
    tokens = [_token(ann, code), _token(ben, code)]
    ann_id, ben_id = (rooms.authenticate(code, token) for token in tokens)

    def everything() -> list[str]:
        """Each player's page and parts, the board, and each player's JSON view."""
        pages = [browser.get(f"/r/{code}{path}") for browser in (ann, ben) for path in ("", "/parts")]
        views = [api.get(f"/api/rooms/{code}", headers={"Authorization": f"Bearer {t}"}) for t in tokens]
        return [answer.get_data(as_text=True) for answer in [*pages, board.get(f"/r/{code}/board"), *views]]

    dice.add((4, 1))
    act(ann, code, action="start", version=version(ann, code))
    # Before Ann shakes, everyone has the commit of her cup; its server seed nobody, not even Ann.
    pending = rooms.load(code).game.pending
    for text in everything():
        assert pending["commit"] in text and pending["seed"] not in text
    rooms.act(code, ann_id, {"action": "shake", "seed": "5a" * 16})
    rooms.act(code, ann_id, {"action": "announce", "value": 52})
    record = rooms.load(code).game.record
    assert record["commit"] == pending["commit"] and record["client_seed"] == "5a" * 16
    assert not any(record["server_seed"] in text for text in everything())
    # Ben checks: the dice come with the server seed, on every page and in every view.
    rooms.act(code, ben_id, {"action": "check"})
    assert all(record["server_seed"] in text for text in everything())
    reveal = rooms.view(code, ben_id)["reveal"]
    assert (reveal["dice"], reveal["fair"]["commit"]) == ([4, 1], pending["commit"])
    html = board.get(f"/r/{code}/board").get_data(as_text=True)
    message = f"{'5a' * 16}:{code}:1:1:1"
    assert f'data-commitment="{pending["commit"]}" data-by="player" data-message="{message}"' in html
    assert f'data-server-seed="{record["server_seed"]}"' in html and 'class="fair-mark" href="/fair"' in html


@pytest.mark.parametrize(("lang", "word"), [("en", "Fair dice"), ("de", "Faire Würfel"), ("ru", "Честные кости")])
def test_the_fair_page_explains_the_seeds_with_an_example_that_rolls_its_dice(client, lang, word):
    client.post("/lang", data={"lang": lang})
    html = client.get("/fair").get_data(as_text=True)
    assert f"<title>Mäxchen · {word}</title>" in html
    field = dict(re.findall(r'<input name="(\w+)"[^>]*value="([^"]*)"', html))
    record = {**field, "game": int(field["game"]), "round": int(field["round"]), "seat": int(field["seat"])}
    dice = [int(die) for die in field["dice"].split()]
    assert fair.check(record, dice) and fair.commit_of(field["server_seed"]) == field["commit"]
    assert 'href="/fair"' in client.get("/rules").get_data(as_text=True)  # the rules lead there
    # It says what it does not prove: the server knows the dice once rolled.
    assert 'class="limits"' in html and 'id="fair-check"' in html and "check.js" in html


def cup_view(html) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="cup-view">(.*?)</script>', html, re.S)[1])


def test_user_text_is_escaped_everywhere(app, lobby):
    code, ann, ben = lobby
    evil, _ = make_seat(app, code, "<svg onload=alert()>")
    for browser in (ann, evil):
        html = browser.get(f"/r/{code}").get_data(as_text=True)
        assert "<svg onload" not in html
        assert "&lt;svg onload=alert()&gt;" in html


def test_cross_site_posts_are_refused(app, lobby):
    code, ann, ben = lobby
    response = ann.post(f"/r/{code}/act", data={"action": "start"}, headers={"Origin": "http://evil.test", **HX})
    assert response.status_code == 403
    response = ann.post(f"/r/{code}/act", data={"action": "start"}, headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403
    same = act(ann, code, action="start", version=version(ann, code))
    assert same.status_code == 200


@pytest.mark.parametrize(
    ("accept", "lang", "text"),
    [("de-DE,de;q=0.9", "de", "Neuer Raum"), ("ru", "ru", "Новая комната"), ("fr", "en", "New room")],
)
def test_language_follows_the_browser(client, accept, lang, text):
    html = client.get("/", headers={"Accept-Language": accept}).get_data(as_text=True)
    assert f'<html lang="{lang}">' in html
    assert text in html


def test_language_choice_is_remembered(client):
    response = client.post("/lang", data={"lang": "ru", "next": "/rules"})
    assert response.status_code == 303 and response.headers["Location"] == "/rules"
    html = client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Новая комната" in html
    evil = client.post("/lang", data={"lang": "de", "next": "//evil.test/"})
    assert evil.headers["Location"] == "/"


@pytest.mark.parametrize(
    ("shown", "back"),
    [
        ("/learn?rules=perudo&games=5&seat=honest&seat=honest", "/learn?rules=perudo&games=5&seat=honest&seat=honest"),
        ("/rules?lang=en", "/rules"),  # the switch, not the old choice in the address
        ("/table", "/"),  # a refused form's page: its address opens no page
        ("/r/ABCDE/join", "/"),
    ],
)
def test_the_language_switch_goes_back_to_the_page_with_its_query(client, shown, back):
    html = client.get("/").get_data(as_text=True)
    assert '<input type="hidden" name="next" value="/">' in html
    assert client.post("/lang", data={"lang": "de", "next": shown}).headers["Location"] == back


def test_a_refused_form_keeps_what_was_chosen_and_says_why_in_its_own_card(client):
    html = client.post("/table", data={"names": "Anna", "rules": "maexchen"}).get_data(as_text=True)
    card = html[html.index("<h2>One phone</h2>") :]
    card = card[: card.index("</section>")]
    assert 'role="alert"' in card and "autofocus" in card and html.count('role="alert"') == 1
    assert re.search(r'value="maexchen"\s+checked', card) and not re.search(r'value="poschen"\s+checked', card)
    html = client.post("/table", data={"names": "Anna", "rules": "poschen", "option.lives": "7"}).get_data(as_text=True)
    assert '<option value="7" selected>' in html
    html = client.post("/rooms", data={"name": "", "rules": "luegen"}).get_data(as_text=True)
    create = html[html.index("<h1>New room</h1>") : html.index("</section>", html.index("<h1>New room</h1>"))]
    assert 'role="alert"' in create and '<option value="luegen" selected>' in create


@pytest.mark.parametrize(
    ("lang", "word"), [("en", "Believe or check"), ("de", "Glauben oder aufdecken"), ("ru", "Верить или проверить")]
)
def test_rules_page_in_three_languages_with_the_ladder(client, lang, word):
    client.post("/lang", data={"lang": lang})
    html = client.get("/rules").get_data(as_text=True)
    assert word in html
    ladder = [int(v) for v in re.findall(r"<tr[^>]*><td>\d+</td><td>(\d+)", html)]
    assert ladder == [21, 66, 55, 44, 33, 22, 11, 65, 64, 63, 62, 61, 54, 53, 52, 51, 43, 42, 41, 32, 31]


@pytest.mark.parametrize("lang", ["de", "ru"])
def test_translations_are_complete_and_compiled(lang):
    folder = ROOT / "translations" / lang / "LC_MESSAGES"
    with open(folder / "messages.po", "rb") as po_file:
        po = read_po(po_file, locale=lang)
    with open(folder / "messages.mo", "rb") as mo_file:
        mo = read_mo(mo_file)
    with open(ROOT / "translations" / "messages.pot", "rb") as pot_file:
        pot = read_po(pot_file)
    wanted = {m.id for m in pot if m.id}
    assert {m.id for m in po if m.id} >= wanted, "run `make translations`"
    for message in po:
        if message.id:
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            assert all(strings), f"untranslated: {message.id}"
            assert "fuzzy" not in message.flags, message.id
            compiled = mo[message.id].string
            compiled = tuple(compiled) if isinstance(compiled, list) else (compiled,)
            assert compiled == strings, f"{message.id}: recompile the .mo"


def test_extracted_catalogue_is_current():
    """Every text in the code and templates is in messages.pot."""
    from babel.messages.extract import extract_from_dir

    with open(ROOT / "translations" / "messages.pot", "rb") as pot_file:
        pot = {m.id for m in read_po(pot_file) if m.id}
    method_map = [("maxchen/**.py", "python"), ("templates/**.html", "jinja2")]
    keywords = {"_": None, "_l": None, "N_": None, "gettext": None, "ngettext": (1, 2)}
    found = {
        (msg if isinstance(msg, str) else tuple(msg))
        for _file, _line, msg, _comments, _context in extract_from_dir(str(ROOT), method_map, keywords=keywords)
    }
    assert found <= pot, f"run `make translations`: {sorted(map(str, found - pot))[:5]}"


def test_one_phone_form_starts_a_covered_table(client):
    response = client.post("/table", data={"names": "Anna\n\n Boris \nCarla", "rules": "poschen"})
    assert response.status_code == 303
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Pass the phone to <bdi>Anna</bdi>" in html
    assert 'data-shared="1"' in html
    # One phone: no online dots, no host, no way to remove a player from the table.
    assert 'class="dot' not in html and 'data-action="remove"' not in html and ">host<" not in html
    assert html.count('class="heart full"') == 15  # three players, five lives each


@pytest.mark.parametrize(
    ("rules", "label", "field", "drawn"),
    [
        ("poschen", "Lives", "option.lives", 'class="heart full"'),  # two players, three lives each
        ("maexchen", "Points to go out", "option.out_at", 'class="pip"'),  # two players, out at three points
    ],
)
def test_one_phone_form_sets_the_length_of_the_game(client, rules, label, field, drawn):
    html = client.get("/").get_data(as_text=True)
    start = html.index('action="/table"')
    one_phone = html[start : html.index("</form>", start)]
    # A rule set's options follow its radio (they show while it is chosen), before the next rule set's.
    mine = one_phone[one_phone.index(f'value="{rules}"') :]
    mine = mine[: mine.index('name="rules"')] if 'name="rules"' in mine else mine
    assert label in mine and label not in one_phone.replace(mine, "")
    assert '<option value="5" selected>' in mine
    response = client.post("/table", data={"names": "Anna\nBoris", "rules": rules, field: "3"})
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    assert html.count(drawn) == 6


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("option.lives", "99", "Lives must be a whole number from 3 to 10."),
        ("option.lives", "x", "Lives must be a whole number from 3 to 10."),
        ("option.lives", "²", "Lives must be a whole number from 3 to 10."),
        ("option.out_at", "4", "Points to go out must be one of 3, 5, 7."),
        ("option.out_at", "3.0", "Points to go out must be one of 3, 5, 7."),
        ("option.bogus", "1", "has no option bogus"),  # a name no rule set has: not dropped without a word
    ],
)
def test_one_phone_form_refuses_a_bad_length_and_makes_no_table(app, field, value, says):
    client = app.test_client()
    rules = "maexchen" if field == "option.out_at" else "poschen"
    response = client.post("/table", data={"names": "Anna\nBoris", "rules": rules, field: value})
    assert response.status_code == 400 and 'role="alert"' in response.get_data(as_text=True)
    assert says in response.get_data(as_text=True)
    assert "Anna\nBoris" in response.get_data(as_text=True)  # what was typed stays
    assert app.extensions["maxchen.rooms"].store.untouched_since(float("inf")) == []


@pytest.mark.parametrize("names", ["Solo", "", "\n".join(f"P{i}" for i in range(11))])
def test_one_phone_form_wants_two_to_ten_names(client, names):
    response = client.post("/table", data={"names": names})
    assert response.status_code == 400
    assert "Enter 2 to 10 names, one per line." in response.get_data(as_text=True)


def test_one_phone_controls_follow_the_holder_not_the_device(app):
    """The device's own seat (the first name) being out must not stop the others."""
    browser = app.test_client()
    browser.post("/table", data={"names": "Anna\nBoris\nCarla"})
    code = next(iter(_seats(browser)))
    rooms = app.extensions["maxchen.rooms"]
    device = rooms.authenticate(code, _seats(browser)[code])
    data = rooms.store.load(code)
    anna, boris = data["seats"][0]["id"], data["seats"][1]["id"]
    assert device == anna
    data["game"]["score"][anna] = 0
    data["game"]["out"] = [anna]
    data["game"]["turn"] = boris
    rooms.store.save(code, data)
    rooms.act(code, device, {"action": "uncover", "player": boris})
    html = browser.get(f"/r/{code}").get_data(as_text=True)
    assert "You are out" not in html
    assert "Shake the cup." in html


def test_a_one_phone_table_offers_only_one_phone_games_for_the_next(app):
    browser = app.test_client()
    browser.post("/table", data={"names": "Anna\nBoris", "rules": "poschen"})
    code = next(iter(_seats(browser)))
    rooms = app.extensions["maxchen.rooms"]
    data = rooms.store.load(code)
    boris = data["seats"][1]["id"]
    data["game"]["score"][boris] = 0  # Boris lost his last life: Anna wins
    data["game"]["out"] = [boris]
    data["game"]["winner"] = data["seats"][0]["id"]
    data["phase"] = "over"
    rooms.store.save(code, data)
    html = browser.get(f"/r/{code}").get_data(as_text=True)
    rules = html[html.index('<select name="rules">') : html.index("</select>", html.index('<select name="rules">'))]
    assert 'value="poschen"' in rules and 'value="maexchen"' in rules and 'value="luegen"' not in rules


def _seats(browser) -> dict:
    """The browser's seats as the cookie holds them: [code, token] pairs."""
    with browser.session_transaction() as session:
        return dict(session.get("seats", []))


def test_a_second_phone_cannot_take_a_seat_at_a_one_phone_table(app):
    table = app.test_client()
    table.post("/table", data={"names": "Anna\nBoris"})
    code = next(iter(_seats(table)))
    stranger = app.test_client()
    page = stranger.get(f"/r/{code}")
    assert page.status_code == 409
    html = page.get_data(as_text=True)
    assert "This table plays on one phone." in html
    assert 'name="name"' not in html  # no form to take a seat
    for response in (
        stranger.post(f"/r/{code}/join", data={"name": "Eve"}),
        stranger.post("/join", data={"code": code, "name": "Eve"}),
    ):
        assert response.status_code == 409
        assert "This table plays on one phone." in response.get_data(as_text=True)
    assert code not in _seats(stranger)
    german = app.test_client()
    german.set_cookie("lang", "de")
    assert "Dieser Tisch spielt auf einem Handy." in german.get(f"/r/{code}").get_data(as_text=True)


@pytest.mark.parametrize("value", ["²", "⁵", "5" * 5000, "-"])
def test_odd_digits_in_forms_are_refused_not_a_crash(app, lobby, value):
    """ "²".isdigit() is true and int("²") fails: only ASCII whole numbers count."""
    code, ann, ben = lobby
    before = version(ann, code, "table")
    for form in (
        {"action": "configure", "rules": "poschen", "option.lives": value},
        {"action": "start", "version": value},
        {"action": "seat", "player": "x", "seat": value},
    ):
        response = act(ann, code, **form)
        assert response.status_code == 200 and response.headers["X-Maxchen-Toast"] == "1"
    assert version(ann, code, "table") == before


# The length of a game (docs/rules.md, "A shorter game"): a rule set's option, a shorter value, its words
# in English and German as the table shows them, and a value it does not offer with the refusal.
LENGTH_WORDS = {
    "maexchen": (
        "out_at",
        "3",
        "Out at 3 points",
        "Raus bei 3 Punkten",
        "4",
        "Points to go out must be one of 3, 5, 7.",
    ),
    "poschen": (
        "lives",
        "3",
        "3 lives each",
        "3 Leben pro Spieler",
        "11",
        "Lives must be a whole number from 3 to 10.",
    ),
    "luegen": (
        "mats",
        "2",
        "A stack of 2 beer mats",
        "Ein Stapel von 2 Bierdeckeln",
        "31",
        "Beer mats must be a whole",
    ),
    "perudo": ("dice", "3", "3 dice each", "3 Würfel pro Spieler", "6", "Dice each must be one of 3, 4, 5."),
}


def table_of_three(app, rules):
    """Ann (host), Ben and Cem in a lobby of `rules`, by the forms."""
    ann, code = make_seat(app)
    ben, _ = make_seat(app, code, "Ben")
    cem, _ = make_seat(app, code, "Cem")
    act(ann, code, action="configure", version=version(ann, code), rules=rules)
    return code, ann, ben, cem


def api_view(browser, code) -> dict:
    """The room's JSON view for the browser's seat (its token from the cookie)."""
    return browser.get(f"/api/rooms/{code}", headers={"Authorization": f"Bearer {_token(browser, code)}"}).json


@pytest.mark.parametrize("rules", sorted(LENGTH_WORDS))
def test_the_host_sets_the_length_in_the_lobby_and_every_page_and_the_api_show_it(app, rules):
    option, value, words, german, _, _ = LENGTH_WORDS[rules]
    code, ann, ben, cem = table_of_three(app, rules)
    assert words not in ben.get(f"/r/{code}").get_data(as_text=True)
    response = act(
        ann, code, action="configure", version=version(ann, code), rules=rules, **{f"option.{option}": value}
    )
    assert "X-Maxchen-Toast" not in response.headers
    # The host's settings keep it chosen and say it; every seat's lobby and a watcher's board say it.
    html = ann.get(f"/r/{code}").get_data(as_text=True)
    settings = html[html.index('id="host-settings"') : html.index("</details>", html.index('id="host-settings"'))]
    assert f"{words} · " in settings and f'<option value="{value}" selected>' in settings
    for browser in (ann, ben, cem):
        html = browser.get(f"/r/{code}").get_data(as_text=True)
        assert re.search(rf'<p class="lobby-rules">[^<]*· {words} ·', html), rules
    assert words in app.test_client().get(f"/r/{code}/board").get_data(as_text=True)
    assert all(api_view(browser, code)["options"][option] == int(value) for browser in (ann, ben, cem))
    cem.set_cookie("lang", "de")
    assert german in cem.get(f"/r/{code}").get_data(as_text=True)
    # During the game: the players' list says it, for everyone and on the board; in the API as before.
    act(ann, code, action="start", version=version(ann, code))
    for browser in (ben, app.test_client()):
        html = browser.get(f"/r/{code}" if browser is ben else f"/r/{code}/board").get_data(as_text=True)
        assert f'table-list" aria-label="{words}">' in html
    assert f'table-list" aria-label="{german}">' in cem.get(f"/r/{code}").get_data(as_text=True)
    view = api_view(ben, code)
    assert view["phase"] == "playing" and view["options"][option] == int(value)


@pytest.mark.parametrize("rules", sorted(LENGTH_WORDS))
def test_a_length_not_offered_or_during_a_game_is_refused_in_words_and_changes_nothing(app, rules):
    option, value, words, _, bad, says = LENGTH_WORDS[rules]
    code, ann, ben, cem = table_of_three(app, rules)
    usual = api_view(ben, code)["options"]
    for sent in (bad, "x", f"{value}.0"):
        before = version(ann, code, "table")
        response = act(
            ann, code, action="configure", version=version(ann, code), rules=rules, **{f"option.{option}": sent}
        )
        assert response.headers["X-Maxchen-Toast"] == "1"
        assert (says if sent == bad else says.split(" must ")[0]) in response.get_data(as_text=True)
        assert version(ann, code, "table") == before and api_view(ben, code)["options"] == usual
    # Ben is no host: his settings change nothing either.
    response = act(
        ben, code, action="configure", version=version(ben, code), rules=rules, **{f"option.{option}": value}
    )
    assert "Only the host can do that." in response.get_data(as_text=True)
    act(ann, code, action="configure", version=version(ann, code), rules=rules, **{f"option.{option}": value})
    act(ann, code, action="start", version=version(ann, code))
    # While the game runs, not even the host changes its length, by the form or by the API.
    default = str(usual[option])
    before = version(ann, code, "table")
    response = act(
        ann, code, action="configure", version=version(ann, code), rules=rules, **{f"option.{option}": default}
    )
    assert "Not while a game is running." in response.get_data(as_text=True)
    answer = ann.post(
        f"/api/rooms/{code}/actions",
        json={"action": "configure", "options": {option: int(default)}},
        headers={"Authorization": f"Bearer {_token(ann, code)}", "Accept-Language": "de"},
    )
    assert answer.status_code == 409 and answer.json["error"]["message"] == "Nicht während eines Spiels."
    assert version(ann, code, "table") == before
    assert api_view(ben, code)["options"][option] == int(value)
    assert f'table-list" aria-label="{words}">' in ben.get(f"/r/{code}").get_data(as_text=True)


def test_the_lobby_knows_the_chosen_games_player_count_and_says_what_it_is(app, lobby):
    code, ann, ben = lobby
    html = ann.get(f"/r/{code}").get_data(as_text=True)
    assert "Two dice under the cup" in html and "needs" not in html  # Mäxchen: two will do
    act(ann, code, action="configure", version=version(ann, code), rules="luegen")
    html = ann.get(f"/r/{code}").get_data(as_text=True)
    assert "Lügen needs 3 players: 1 more." in html and "Three dice each" in html
    cem, _ = make_seat(app, code, "Cem")
    assert "needs" not in cem.get(f"/r/{code}").get_data(as_text=True)


def test_the_one_phone_form_offers_only_games_one_phone_can_play(client):
    html = client.get("/").get_data(as_text=True)
    start = html.index('action="/table"')
    one_phone = html[start : html.index("</form>", start)]
    assert 'value="poschen"' in one_phone and 'value="maexchen"' in one_phone
    assert 'value="luegen"' not in one_phone


def test_standings_after_everyone_else_left_say_so_and_leave_out_a_later_seat(app):
    ann, code = make_seat(app)
    ben, _ = make_seat(app, code, "Ben")
    cem, _ = make_seat(app, code, "Cem")
    act(ann, code, action="start", version=version(ann, code))
    act(ben, code, action="leave", version=version(ben, code))
    act(cem, code, action="leave", version=version(cem, code))
    dan, _ = make_seat(app, code, "Dan")  # sits down after the game: not part of it
    html = ann.get(f"/r/{code}").get_data(as_text=True)
    standings = html[html.index('class="standings won"') : html.index("</ol>", html.index('class="standings'))]
    names = re.findall(r"<bdi>(\w+)</bdi>", standings)
    assert names == ["Ann", "Cem", "Ben"]  # the winner, then the last to leave
    assert standings.count("· left") == 2
    assert "<bdi>Ann</bdi> wins!" in html and "Everyone else left." in html


def test_after_a_believed_mayer_the_only_choice_is_made_and_said(app):
    from maxchen.dice import FixedDice

    rooms = app.extensions["maxchen.rooms"]
    rooms.dice = FixedDice([(2, 1), (3, 1)])
    ann, code = make_seat(app)
    ben, _ = make_seat(app, code, "Ben")
    act(ann, code, action="configure", version=version(ann, code), rules="poschen")
    act(ann, code, action="start", version=version(ann, code))
    for step in ({"action": "shake"}, {"action": "announce", "value": "21"}):
        act(ann, code, version=version(ann, code), **step)
    for step in ({"action": "believe"}, {"action": "shake"}):
        act(ben, code, version=version(ben, code), **step)
    html = ben.get(f"/r/{code}").get_data(as_text=True)
    form = html[html.index('<form class="announce"') : html.index("</form>", html.index('<form class="announce"'))]
    assert re.findall(r'value="(\d+)" required', form) == ["21"] and "checked" in form
    assert "Only Mayer is left to announce." in form and ">Announce: Mayer</button>" in form


def test_learn_shows_the_ladders_odds(client):
    html = client.get("/learn").get_data(as_text=True).replace("\u00a0", " ")
    rows = re.findall(r"<tr[^>]*><td>([^<]+)</td><td>([^<]+)</td><td>([^<]+)</td><td>([^<]+)</td></tr>", html)
    assert rows[0] == ("Mäxchen", "2/36", "5.6 %", "0.0 %")  # the top of the ladder: nothing beats it
    assert ("31", "2/36", "100.0 %", "94.4 %") in rows and ("61", "2/36", "50.0 %", "44.4 %") in rows
    assert len(rows) == 21


def test_learn_simulates_and_reads_the_dice_against_theory(client):
    html = client.get("/learn?games=3000&seat=statistician&seat=honest&seat=").get_data(as_text=True)
    assert "3000 games in" in html and "<svg" in html and "χ² = " in html and "degrees of freedom 20" in html
    rates = re.findall(r"<td>(statistician|honest)</td><td>([\d.]+) %</td>", html)
    assert [name for name, _ in rates] == ["statistician", "honest"]
    assert sum(float(rate) for _, rate in rates) == pytest.approx(100, abs=0.2)
    csv = client.get("/learn?games=500&seat=honest&seat=honest&format=csv")
    assert csv.mimetype == "text/csv" and csv.get_data(as_text=True).startswith("section,key,seats,count,out_of")


def test_learn_says_when_a_win_rate_is_fixed_by_symmetry(client):
    html = client.get("/learn?games=200&seat=honest&seat=honest").get_data(as_text=True)
    assert "<td>honest × 2</td><td>50.0 %</td><td>fixed by symmetry: every player plays it</td>" in html


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("games=0&seat=honest&seat=honest", "Games must be a whole number from 1 to 100000."),
        ("games=200000&seat=honest&seat=honest", "Games must be a whole number from 1 to 100000."),
        ("games=²&seat=honest&seat=honest", "Games must be a whole number"),
        ("games=10&seat=honest", "Mäxchen needs 2 to 6 players."),
        ("games=10&seat=psychic&seat=honest", "There is no bot strategy psychic."),
        ("games=10&seat=honest&seat=honest&length=4", "Game length must be one of 3, 5, 7."),
        ("games=10&seat=honest&seat=honest&length=x", "Game length must be one of 3, 5, 7."),
        (
            "rules=poschen&games=10&seat=honest&seat=honest&length=11",
            "Game length must be a whole number from 3 to 10.",
        ),
        (
            "rules=luegen&games=10&seat=honest&seat=honest&length=99999",
            "Game length must be a whole number from 2 to 30.",
        ),
        ("rules=perudo&games=10&seat=honest&seat=honest&length=-3", "Game length must be one of 3, 4, 5."),
    ],
)
def test_learn_refuses_a_bad_form_and_keeps_it(client, query, says):
    response = client.get("/learn?" + query)
    assert response.status_code == 400 and says in response.get_data(as_text=True)
    assert 'name="games"' in response.get_data(as_text=True)


def test_simulations_are_limited_per_address(app, steady_limits):
    app.config["MAXCHEN_LIMIT_SIMULATIONS"] = "2 per minute"
    client = app.test_client()
    answers = [client.get("/learn?games=10&seat=honest&seat=honest").status_code for _ in range(3)]
    assert answers == [200, 200, 429]
    assert client.get("/learn").status_code == 200  # the odds stay readable


def test_learns_csv_holds_the_very_games_on_the_page_and_odd_parameters_break_nothing(client):
    html = client.get("/learn?games=400&seat=honest&seat=bluffer&_scheme=x&_anchor=y&_method=POST").get_data(
        as_text=True
    )
    link = re.search(r'href="(/learn\?[^"]*format=csv[^"]*)"', html)[1].replace("&amp;", "&")
    assert "_scheme" not in link and "seed=" in link
    # The switch keeps the seed the run drew: another part of the page shows the very same games.
    seed = re.search(r"seed=(\d+)", link)[1]
    switch = [a.replace("&amp;", "&") for a in re.findall(r'<nav class="board-switch"[^>]*>(.*?)</nav>', html, re.S)]
    assert switch and all(f"seed={seed}" in href for href in re.findall(r'href="([^"]+)"', switch[0]))
    shown = [float(rate) for rate in re.findall(r"<td>(?:honest|bluffer)</td><td>([\d.]+) %</td>", html)]
    rows = list(csv.DictReader(io.StringIO(client.get(link).get_data(as_text=True))))
    assert [round(100 * int(r["count"]) / 400, 1) for r in rows if r["section"] == "wins"] == shown


def test_one_simulation_at_a_time_whoever_asks(client):
    from maxchen.web import learn

    assert learn._SIMULATING.acquire(blocking=False)  # someone's 100,000 games are running
    try:
        busy = client.get("/learn?games=10&seat=honest&seat=honest")
        assert busy.status_code == 429 and busy.headers["Retry-After"] == "5"
        assert "The simulator is busy with another run. Try again in 5 s." in busy.get_data(as_text=True)
    finally:
        learn._SIMULATING.release()
    assert client.get("/learn?games=10&seat=honest&seat=honest").status_code == 200


def test_the_teaching_hint_gives_the_odds_beside_the_announcement(app, dice):
    ann, code = make_seat(app)
    ben, _ = make_seat(app, code, "Ben")
    assert "Teaching hint: off" in ann.get(f"/r/{code}").get_data(as_text=True)  # off unless the host asks
    act(ann, code, action="configure", version=version(ann, code), rules="maexchen", **{"option.hint": "on"})
    dice.add((6, 5))
    act(ann, code, action="start", version=version(ann, code))
    act(ann, code, action="shake", version=version(ann, code))
    act(ann, code, action="announce", value="65", version=version(ann, code))
    # 65 or more: 65 and the six doubles and Mäxchen, 10/36; beaten by 8/36. Said of a fresh roll,
    # never as the chance that Ann's 65 is true.
    page = ben.get(f"/r/{code}").get_data(as_text=True)
    assert (
        "Chance alone, whatever is under this cup: a fresh roll is 65 or higher in 28\u00a0% of rolls,"
        " and high enough for the next player to go on without a lie in 22\u00a0%."
    ) in page


@pytest.mark.parametrize(("rules", "goes_on"), [("maexchen", "0 %"), ("poschen", "6 %")])
def test_after_a_mayer_the_hint_gives_what_the_next_player_needs(app, dice, rules, goes_on):
    # Mäxchen: nothing beats 21 (accept or check). Poschen: a Mayer again will do, 2/36.
    ann, code = make_seat(app)
    ben, _ = make_seat(app, code, "Ben")
    act(ann, code, action="configure", version=version(ann, code), rules=rules, **{"option.hint": "on"})
    dice.add((2, 1))
    act(ann, code, action="start", version=version(ann, code))
    act(ann, code, action="shake", version=version(ann, code))
    act(ann, code, action="announce", value="21", version=version(ann, code))
    page = ben.get(f"/r/{code}").get_data(as_text=True)
    top = "Mäxchen" if rules == "maexchen" else "Mayer"  # as the card's caption names it
    said = f"is {top} or higher in 6\u00a0% of rolls, and high enough for the next player to go on without a lie in"
    assert f"{said} {goes_on.replace(' ', chr(160))}." in page


@pytest.mark.parametrize(("rules", "cup", "bid"), [("luegen", (5, 5, 1), (4, 5)), ("perudo", (5, 4, 3, 2, 1), (6, 5))])
def test_the_teaching_hint_of_liars_dice_gives_the_bids_binomial_odds(app, dice, rules, cup, bid):
    """Every die on the table unseen (the board's view): P(at least k of n dice show the face or a 1), by scipy."""
    import scipy.stats as scipy

    ann, code = make_seat(app)
    others = [make_seat(app, code, name)[0] for name in ("Ben", "Cem")]
    act(ann, code, action="configure", version=version(ann, code), rules=rules)
    assert "Teaching hint: off" in ann.get(f"/r/{code}").get_data(as_text=True)  # off unless the host asks
    act(ann, code, action="configure", version=version(ann, code), rules=rules, **{"option.hint": "on"})
    dice.add(*[cup] * 3)
    act(ann, code, action="start", version=version(ann, code))
    for browser in (ann, *others):
        act(browser, code, action="shake", version=version(browser, code))
    act(ann, code, action="bid", count=bid[0], face=bid[1], version=version(ann, code))
    n = 3 * len(cup)

    def percent(k):  # as a class reads them: whole percents, one decimal under 10 % (none is under 0.1 % here)
        chance = scipy.binom.sf(k - 1, n, 1 / 3)
        return f"{100 * chance:.{0 if chance >= 0.1 else 1}f}\u00a0%"

    for page in (others[0].get(f"/r/{code}"), app.test_client().get(f"/r/{code}/board")):
        html = page.get_data(as_text=True)
        said = f"of the {n} dice on the table, at least {bid[0]} show a {bid[1]} or a 1 in {percent(bid[0])} of rolls."
        assert said in html.replace("&nbsp;", "\u00a0")
        table = re.search(r'<table class="odds-table">(.*?)</table>', html, re.S)[1].replace("&nbsp;", "\u00a0")
        counts = [int(k) for k in re.findall(r"<td[^>]*>(\d+)</td>", table)]
        assert counts == list(range(bid[0] - 2, bid[0] + 3))
        assert re.findall(r"<td[^>]*>([^<]*%)</td>", table) == [percent(k) for k in counts]
        assert re.findall(r'<td class="this">([^<]*)</td>', table) == [str(bid[0]), percent(bid[0])]


# --- the statistics page and its CSV ---


def seated(app, code, token):
    """A browser whose cookie holds a seat (as the forms would leave it)."""
    browser = app.test_client()
    with browser.session_transaction() as session:
        session["seats"] = [[code, token]]
    return browser


def rows(response) -> list[dict]:
    text = response.get_data(as_text=True)
    assert text.startswith("\ufeff")  # the byte-order mark: a spreadsheet reads UTF-8 names right
    return list(csv.DictReader(io.StringIO(text[1:])))


def stats_area(browser, code) -> str:
    html = browser.get(f"/r/{code}/stats").get_data(as_text=True)
    return html[html.index('<div id="stats"') : html.index("</main>")]


def board_stats(browser, code) -> str:
    html = browser.get(f"/r/{code}/board").get_data(as_text=True)
    return re.sub(r'data-version="\d+"', "", html[html.index('<div id="stats"') :])


def test_a_believed_roll_shows_on_no_page_and_in_no_csv_until_its_game_is_over(app, rooms, dice):
    """Ann's 4-1 behind a believed "62": the statistics page, the board and the CSV say nothing of it."""
    ann = rooms.create("Ann")
    code = ann["code"]
    ben = rooms.join(code, "Ben")
    cem = rooms.join(code, "Cem")
    stranger = app.test_client()  # anyone with the code

    def everything():
        return stats_area(stranger, code), board_stats(stranger, code), stranger.get(f"/r/{code}/stats.csv").data

    dice.add((4, 1), (6, 5))
    rooms.act(code, ann["player"], {"action": "start"})
    before = everything()
    rooms.act(code, ann["player"], {"action": "shake"})
    rooms.act(code, ann["player"], {"action": "announce", "value": 62})
    rooms.act(code, ben["player"], {"action": "believe"})
    assert everything() == before
    # The page's poll asks with the key of what it shows: unchanged, the answer is empty.
    key = re.search(r"key=(\w+)", before[0])[1]
    assert stranger.get(f"/r/{code}/stats?key={key}", headers=HX).status_code == 204
    # Ben's 6-5 behind a "65", checked by Cem: seen by all, so it shows at once, as a checked cup
    # (a sample the dice are never judged on).
    rooms.act(code, ben["player"], {"action": "shake"})
    rooms.act(code, ben["player"], {"action": "announce", "value": 65})
    rooms.act(code, cem["player"], {"action": "check"})
    polled = stranger.get(f"/r/{code}/stats?key={key}", headers=HX)
    assert polled.status_code == 200 and "65: 100.0 % (1)" in polled.get_data(as_text=True)
    assert "the checked cups only" in polled.get_data(as_text=True)
    for shown in (stats_area(stranger, code), board_stats(stranger, code)):
        assert "1 checked cup" in shown and "were lies" in shown  # 65's check, not Ann's 62
        assert "62: 1 of 1 were lies" not in shown and "χ²" not in shown
        assert not re.search(r"41: [\d.]+ % \([1-9]", shown)  # Ann's 41 is in no count
    (row,) = rows(stranger.get(f"/r/{code}/stats.csv"))
    assert (row["player"], row["dice"], row["announced"], row["answered_by"], row["outcome"], row["lie"]) == (
        "P2",  # Ann rolled first: P1, though her roll is not shown yet
        "6 5",
        "65",
        "P3",
        "true",
        "0",
    )
    assert row["sample"] == "checked"  # its game runs: a notebook must not test the dice on it
    # The game is over (the others leave): Ann's 4-1 is the table's to know now.
    rooms.act(code, ben["player"], {"action": "leave"})
    rooms.act(code, cem["player"], {"action": "leave"})
    for shown in (stats_area(stranger, code), board_stats(stranger, code)):
        assert "41: 50.0 % (1)" in shown and "62: 1 of 1 were lies" in shown
    first, _ = rows(stranger.get(f"/r/{code}/stats.csv"))
    assert (first["game"], first["round"], first["player"], first["dice"], first["value"]) == (
        "1",
        "1",
        "P1",
        "4 1",
        "41",
    )
    assert (first["announced"], first["outcome"], first["lie"], first["answered_by"]) == ("62", "believed", "1", "P2")
    assert {row["sample"] for row in rows(stranger.get(f"/r/{code}/stats.csv"))} == {"all"}


def checked_round(rooms, dice, names, roll, value):
    """A room of two where the host rolls `roll`, announces `value` and the guest checks it."""
    host = rooms.create(names[0])
    code = host["code"]
    guest = rooms.join(code, names[1])
    dice.add(roll)
    rooms.act(code, host["player"], {"action": "start"})
    rooms.act(code, host["player"], {"action": "shake"})
    rooms.act(code, host["player"], {"action": "announce", "value": value})
    rooms.act(code, guest["player"], {"action": "check"})
    return code, host, guest


def test_the_statistics_page_shows_the_charts_with_their_axes_and_links_the_csv(app, rooms, dice):
    code, ann, ben = checked_round(rooms, dice, ("Ann", "Ben"), (4, 3), 54)
    html = app.test_client().get(f"/r/{code.lower()}/stats").get_data(as_text=True)
    assert "value (ladder order)" in html and "share of checked cups" in html  # this game's checked cups
    assert "No game is over yet" in html and "share of rolls" not in html  # no test of the dice yet
    assert "announced value (ladder order)" in html and "share that were lies" in html  # the lies
    assert "1/1" in html and "χ²" not in html
    assert f'href="/r/{code}/stats.csv"' in html and "names=1" not in html  # no names for a stranger
    host = seated(app, code, ann["token"]).get(f"/r/{code}/stats").get_data(as_text=True)
    assert f'href="/r/{code}/stats.csv?names=1"' in host
    # The board and the game-over screen lead here.
    assert f'href="/r/{code}/stats"' in app.test_client().get(f"/r/{code}/board").get_data(as_text=True)
    rooms.act(code, ben["player"], {"action": "leave"})
    html = app.test_client().get(f"/r/{code}/stats").get_data(as_text=True)
    assert "share of rolls" in html and "1 roll so far: the test of the dice needs about 180." in html
    assert "χ²" not in html  # no figure before every expected count is 5
    over = seated(app, code, ann["token"]).get(f"/r/{code}").get_data(as_text=True)
    result = over[over.index('class="standings') :]
    assert f'href="/r/{code}/stats"' in result


def lies_to_the_end(rooms, dice, code, liar, checker):
    """The liar opens every round with 62 on 4-3 and is checked, until the game is over."""
    while rooms.view(code, liar)["phase"] == "playing":
        dice.add((4, 3))
        rooms.act(code, liar, {"action": "shake"})
        rooms.act(code, liar, {"action": "announce", "value": 62})
        rooms.act(code, checker, {"action": "check"})


def test_the_statistics_say_how_long_the_games_were_once_one_was_not_the_usual_length(app, rooms, dice):
    ann = rooms.create("Ann")
    code = ann["code"]
    ben = rooms.join(code, "Ben")
    rooms.act(code, ann["player"], {"action": "start"})
    lies_to_the_end(rooms, dice, code, ann["player"], ben["player"])  # out at 5, as usual: nothing said
    stranger = app.test_client()
    assert "game-lengths" not in stats_area(stranger, code) and "game-lengths" not in board_stats(stranger, code)
    rooms.act(code, ann["player"], {"action": "configure", "options": {"out_at": 3}})
    rooms.act(code, ann["player"], {"action": "start"})
    lies_to_the_end(rooms, dice, code, ann["player"], ben["player"])
    assert rooms.view(code, ann["player"])["players"][0]["points"] == 3
    for area in (stats_area(stranger, code), board_stats(stranger, code)):
        lengths = area[area.index('class="small game-lengths"') : area.index("</ul>", area.index("game-lengths"))]
        assert re.findall(r"<li>([^<]+)</li>", lengths) == [
            "Mäxchen · Out at 3 points: 1 game",
            "Mäxchen · Out at 5 points: 1 game",
        ]
    assert stranger.get(f"/api/rooms/{code}/stats").json["lengths"] == [
        {"rules": "maexchen", "length": 3, "games": 1},
        {"rules": "maexchen", "length": 5, "games": 1},
    ]
    stranger.set_cookie("lang", "de")
    assert "Mäxchen · Raus bei 3 Punkten: 1 Spiel" in stats_area(stranger, code)


@pytest.fixture
def named_game(app, rooms, dice):
    """A checked roll between a host and a guest whose names a spreadsheet would take for formulas."""
    return checked_round(rooms, dice, ("=SUM(A1)", '@Ben, "the" 2'), (6, 5), 65)


def test_the_csv_is_an_attachment_with_its_columns_and_no_names(app, named_game):
    from maxchen.stats import LOG_CSV_COLUMNS

    code, host, guest = named_game
    response = app.test_client().get(f"/r/{code}/stats.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == f'attachment; filename="maxchen-{code}.csv"'
    text = response.get_data(as_text=True)
    assert text.splitlines()[0] == "\ufeff" + ",".join((*LOG_CSV_COLUMNS, "unchecked"))  # why no seed (fair.py)
    assert "SUM" not in text and "Ben" not in text and host["player"] not in text  # neither names nor ids
    (row,) = rows(response)
    assert (row["player"], row["answered_by"], row["rules"]) == ("P1", "P2", "maexchen")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", row["time"])


def test_only_the_host_gets_the_names_and_a_name_never_becomes_a_formula(app, named_game):
    code, host, guest = named_game
    for browser in (app.test_client(), seated(app, code, guest["token"])):  # a stranger, a guest
        refused = browser.get(f"/r/{code}/stats.csv?names=1")
        assert refused.status_code == 403 and "Only the host" in refused.get_data(as_text=True)
    response = seated(app, code, host["token"]).get(f"/r/{code}/stats.csv?names=1")
    assert response.headers["Content-Disposition"] == f'attachment; filename="maxchen-{code}-names.csv"'
    # Quoted as CSV quotes (the comma and the quotes inside), and an apostrophe ahead of = and @.
    assert "\r\n" in response.get_data(as_text=True)
    assert """,'=SUM(A1),""" in response.get_data(as_text=True)
    assert ""","'@Ben, ""the"" 2",""" in response.get_data(as_text=True)
    (row,) = rows(response)
    assert (row["player"], row["answered_by"]) == ("'=SUM(A1)", '\'@Ben, "the" 2')


@pytest.mark.parametrize("name", ["=1+1", "+1", "-1", "@A", "Ann"])
def test_formula_characters_at_the_start_of_a_cell_are_quoted_away(name):
    from maxchen.stats import _cell

    assert _cell(name) == (name if name == "Ann" else "'" + name)


def test_the_statistics_of_an_unknown_room_or_a_one_phone_table_are_not_there(app, client):
    for path in ("/r/ZZZZZ/stats", "/r/ZZZZZ/stats.csv", "/r/nonsense/stats.csv"):
        assert client.get(path).status_code == 404
    table = app.extensions["maxchen.rooms"].create_shared(["Anna", "Boris"])
    assert client.get(f"/r/{table['code']}/stats").status_code == 409
    assert client.get(f"/r/{table['code']}/stats.csv").status_code == 409


def test_the_statistics_count_against_the_page_budget_and_downloads_against_their_own(app, named_game, steady_limits):
    code, _, _ = named_game
    app.config["MAXCHEN_LIMIT_PAGES"] = "2 per minute"
    app.config["MAXCHEN_LIMIT_DOWNLOADS"] = "2 per minute"
    client = app.test_client()
    pages = [client.get(f"/r/{code}/stats").status_code for _ in range(3)]
    downloads = [client.get(f"/r/{code}/stats.csv").status_code for _ in range(3)]
    assert (pages, downloads) == ([200, 200, 429], [200, 200, 429])


def test_a_long_log_is_sent_in_chunks_with_the_others_turns_between(app, named_game, monkeypatch):
    from maxchen.web import boards

    code, _, _ = named_game
    monkeypatch.setattr(boards, "CSV_CHUNK", 1)
    response = app.test_client().get(f"/r/{code}/stats.csv", buffered=False)
    assert response.is_streamed
    chunks = [chunk for chunk in response.response if chunk]
    assert len(chunks) >= 2 and b"".join(chunks).decode("utf-8-sig").startswith("game,round,")


# --- the statistics as JSON: the page's numbers, computed another way ---


def _bot_move(rooms, code, seats, rng) -> None:
    """One move of an honest bot for whichever seat may move (every move through `Rooms.act`)."""
    from maxchen import bots

    for seat in rng.sample(seats, len(seats)):
        move = bots.act("honest", rooms.view(code, seat["player"]), rng)
        if move:
            rooms.act(code, seat["player"], move)
            return


def test_the_statistics_json_is_the_csvs_rolls_tested_by_scipy(app, rooms):
    import random

    import scipy.stats as scipy

    from maxchen import evidence
    from maxchen.dice import SeededDice
    from maxchen.rules import two_dice as rules

    rooms.dice = SeededDice(11)
    rng = random.Random(11)
    seats = [rooms.create("Ann")]
    code = seats[0]["code"]
    seats += [rooms.join(code, name) for name in ("Ben", "Cem")]
    for _ in range(8):  # eight whole games
        rooms.act(code, seats[0]["player"], {"action": "start"})
        while rooms.load(code).phase == "playing":
            _bot_move(rooms, code, seats, rng)
    rooms.act(code, seats[0]["player"], {"action": "start"})  # a ninth runs: its checked cups apart
    while rooms.load(code).counts["game"]["values"] == {}:
        _bot_move(rooms, code, seats, rng)
    stranger = app.test_client()
    before = rooms.load(code).to_dict()
    numbers = stranger.get(f"/api/rooms/{code}/stats").get_json()
    assert rooms.load(code).to_dict() == before  # reading changes nothing
    table = rows(stranger.get(f"/r/{code}/stats.csv"))
    over = [row for row in table if row["sample"] == "all"]
    checked = [row for row in table if row["sample"] == "checked"]
    assert checked and over
    observed = [sum(row["value"] == str(value) for row in over) for value in rules.VALUES]
    expected = [len(over) * float(rules.probability(value)) for value in rules.VALUES]
    test = numbers["dice"]["values"]
    assert [row["observed"] for row in test["rows"]] == observed
    assert [row["expected"] for row in test["rows"]] == pytest.approx(expected)
    statistic, p = scipy.chisquare(observed, expected)
    assert test["total"] == len(over) and test["df"] == 20
    assert test["chi2"] == pytest.approx(statistic) and test["p"] == pytest.approx(p, rel=1e-9)
    # The verdict reads the evidence of the single dice in the CSV's rows, however often anyone looked.
    faces = [int(die) for row in over for die in row["dice"].split()]
    strength = evidence.evidence({face: faces.count(face) for face in range(1, 7)})
    assert test["evidence"] == pytest.approx(strength) and test["verdict"] == (
        "loaded" if strength >= 20 else "no_sign"
    )
    assert numbers["checked_cups"]["values"]["total"] == len(checked)
    assert numbers["checks"]["checks"] == sum(row["outcome"] in ("true", "lie") for row in table)
    assert numbers["checks"]["lies"] == sum(row["outcome"] == "lie" for row in table)
    said = [row for row in over if row["announced"]]
    assert numbers["announcements"] == {
        "sample": "games_over",
        "announcements": len(said),
        "lies": sum(row["lie"] == "1" for row in said),
        "by_value": numbers["announcements"]["by_value"],
    }
    # The page says the same: its χ² line and its verdict.
    page = stranger.get(f"/r/{code}/stats").get_data(as_text=True)
    assert f"χ² = {statistic:.1f}, degrees of freedom 20" in page
    assert f'data-verdict="{test["verdict"]}"' in page
    # Names: none, for anyone.
    assert not {"Ann", "Ben", "Cem"} & set(re.findall(r"\w+", json.dumps(numbers)))


@pytest.mark.parametrize("path", ["/api/rooms/ZZZZZ/stats", "/api/rooms/%00/stats", "/api/classes/ZZZZZZ/stats"])
def test_the_statistics_json_of_no_room_is_a_json_404(client, path):
    answer = client.get(path)
    assert answer.status_code == 404 and answer.get_json()["error"]["code"] == "room_not_found"


def test_a_running_games_rows_are_the_checked_sample_in_the_csv_even_when_every_cup_so_far_was_seen(app, rooms, dice):
    code, ann, ben = checked_round(rooms, dice, ("Ann", "Ben"), (4, 3), 54)  # the only cup yet: checked
    stranger = app.test_client()
    assert [row["sample"] for row in rows(stranger.get(f"/r/{code}/stats.csv"))] == ["checked"]
    rooms.act(code, ben["player"], {"action": "leave"})  # the game is over
    assert [row["sample"] for row in rows(stranger.get(f"/r/{code}/stats.csv"))] == ["all"]


def test_a_refused_poll_of_the_statistics_keeps_what_the_page_shows(app, rooms, dice):
    # A refusal swapped in as a toast would end the page's polling for good: it answers 204 instead.
    code, _, _ = checked_round(rooms, dice, ("Ann", "Ben"), (4, 3), 54)
    app.config["MAXCHEN_LIMIT_PAGES"] = "1 per hour"
    client = app.test_client()
    assert client.get(f"/r/{code}/stats").status_code == 200
    polled = client.get(f"/r/{code}/stats?key=x", headers=HX)
    assert polled.status_code == 204 and polled.data == b""
    assert client.get(f"/r/{code}/stats").status_code == 429  # the page itself is refused as before


def test_the_simulator_form_plays_any_rule_set_within_its_own_cap_and_says_so(client, monkeypatch):
    """The form keeps Mäxchen's 10,000 games when another game is chosen: it plays what it may, and says so."""
    from maxchen import simulate
    from maxchen.rulesets import REGISTRY

    monkeypatch.setattr(simulate, "ENGINE_SECONDS", 0.05)
    name = "perudo"  # as a rule set without a batch engine would be: one game at a time, on the real engine
    monkeypatch.setitem(REGISTRY, name, dataclasses.replace(REGISTRY[name], batch=None))
    page = client.get(f"/learn?rules={name}&games=10000&seat=honest&seat=bluffer&seat=statistician&seed=1")
    text = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "of the 10000 games asked for were played" in text
    assert client.get("/learn?rules=skat&games=10&seat=honest&seat=bluffer").status_code == 400
    assert client.get("/learn?games=100001&seat=honest&seat=bluffer").status_code == 400


@pytest.mark.parametrize(
    ("rules", "length", "says"),
    [
        ("maexchen", 3, "Out at 3 points"),
        ("poschen", 10, "10 lives each"),
        ("luegen", 2, "A stack of 2 beer mats"),
        ("perudo", 3, "3 dice each"),
    ],
)
def test_the_simulator_plays_games_of_the_length_asked(client, rules, length, says):
    """A shorter game is the same game, shorter: /learn plays it at the length asked and says which."""
    from maxchen import simulate
    from maxchen.rulesets import REGISTRY

    asked = f"/learn?rules={rules}&games=300&seat=honest&seat=bluffer&seat=statistician&seed=7"
    usual, short = (client.get(asked + extra).get_data(as_text=True) for extra in ("", f"&length={length}"))
    rounds = [float(re.search(r"Rounds per game: (\d+\.\d)", page)[1]) for page in (usual, short)]
    expected = simulate.simulate(
        ["honest", "bluffer", "statistician"], 300, 7, rules, {REGISTRY[rules].game.LENGTH: length}
    )
    assert rounds[1] == round(sum(expected.rounds) / 300, 1)
    assert (rounds[1] < rounds[0]) == (length < REGISTRY[rules].game.OPTIONS[REGISTRY[rules].game.LENGTH].default)
    assert says in short and f'name="length" type="number" min="2" max="30" value="{length}"' in short
    csv_link = re.search(r'href="(/learn\?[^"]*format=csv[^"]*)"', short)[1]
    assert f"length={length}" in csv_link  # the CSV: the same games


def test_the_simulators_csv_holds_the_games_the_page_shows_even_where_a_run_stops_at_its_time(client, monkeypatch):
    """A run stopped by its time limit may stop elsewhere when run again: the CSV link gets the page's own games."""
    import html as markup

    from maxchen import simulate
    from maxchen.rulesets import REGISTRY

    monkeypatch.setattr(simulate, "ENGINE_SECONDS", 0.05)
    name = "perudo"  # as a rule set without a batch engine would be: one game at a time, on the real engine
    monkeypatch.setitem(REGISTRY, name, dataclasses.replace(REGISTRY[name], batch=None))
    text = client.get(f"/learn?rules={name}&games=1000&seat=honest&seat=bluffer&seat=statistician").get_data(
        as_text=True
    )
    played = int(re.search(r"(\d+) of the 1000 games asked for were played", text)[1])
    link = markup.unescape(re.search(r'href="(/learn\?[^"]*format=csv[^"]*)"', text)[1])
    monkeypatch.setattr(simulate, "ENGINE_SECONDS", 0.0)  # a second run now would play a single game
    rows = list(csv.DictReader(io.StringIO(client.get(link).get_data(as_text=True))))
    assert {int(r["out_of"]) for r in rows if r["section"] == "wins"} == {played}


SHOWN = r"(&lt; 0.1|[\d.]+)\u00a0%"  # a chance on /learn: never "0.0 %" for one that is not 0
ODDS_ROW = rf'<tr(?: class="nil")?><td>(\d+)</td><td>{SHOWN}</td><td>{SHOWN}</td></tr>'  # /learn's liar's-dice table


def test_learn_shows_liars_dice_odds_as_scipy_computes_them(client):
    from scipy.stats import binom

    html = client.get("/learn?unseen=12").get_data(as_text=True)
    rows = re.findall(ODDS_ROW, html)
    assert [int(k) for k, _, _ in rows] == list(range(1, 13))
    for k, wild, plain in rows:  # P(at least k of 12), a die counting with 1/3 (ones wild) or 1/6
        for shown, p in ((wild, 1 / 3), (plain, 1 / 6)):
            chance = 100 * binom.sf(int(k) - 1, 12, p)
            if shown == "&lt; 0.1":  # never "0.0 %" for a chance that is not 0
                assert 0 < chance < 0.1, (k, p)
            else:
                assert float(shown) == pytest.approx(chance, abs=0.051), (k, p)
    assert "4.0 and 2.0 of 12" in html
    assert len(re.findall(ODDS_ROW, client.get("/learn").get_data(as_text=True))) == 10
    for bad in ("0", "51", "x", "²", "-3", "1e3"):
        answer = client.get("/learn?unseen=" + bad)
        text = answer.get_data(as_text=True)
        assert answer.status_code == 400 and "Dice you cannot see: a whole number from 1 to 50." in text, bad
        assert len(re.findall(ODDS_ROW, text)) == 10  # the table as it was: ten dice


def test_learn_rolls_dice_one_by_one_and_draws_them_over_time(client):
    fair = client.get("/learn?dice=600&six=fair").get_data(as_text=True)
    assert fair.count('class="chart convergence"') == 1 and fair.count("<polyline") == 3  # share, p, evidence
    assert "χ² = " in fair.split('id="over-time"')[1]  # the test of the 600 dice, in words
    # Half sixes: after 2,000 dice the test cannot miss them. The chart counts against the simulator's budget.
    loaded = client.get("/learn?dice=2000&six=1/2").get_data(as_text=True)
    assert "are the dice loaded?" in loaded.split('id="over-time"')[1]
    assert 'class="chart convergence"' not in client.get("/learn").get_data(as_text=True)  # only when asked
    assert 'class="chart convergence"' in client.get("/learn?dice=100&six=").get_data(as_text=True)  # fair
    for query, says in [
        ("dice=9", "Dice: a whole number from 10 to 10000."),
        ("dice=10001", "Dice: a whole number from 10 to 10000."),
        ("dice=x", "Dice: a whole number from 10 to 10000."),
        ("dice=²", "Dice: a whole number from 10 to 10000."),
        ("dice=100&six=1/6", "Choose how often a loaded die shows a six: fair, 1/4, 1/3, 1/2."),
        ("dice=100&six=½", "Choose how often a loaded die shows a six: fair, 1/4, 1/3, 1/2."),
    ]:
        answer = client.get("/learn?" + query)
        text = answer.get_data(as_text=True)
        assert answer.status_code == 400 and says in text and 'class="chart convergence"' not in text, query


def test_learn_says_how_often_a_claim_is_true(client):
    html = client.get("/learn?after=62").get_data(as_text=True).replace("\u00a0", " ")
    rows = dict(re.findall(r'<tr data-value="(\d+)"><td>[^<]+</td><td>[^<]+</td><td>([^<]+) <span', html))
    assert rows["63"] == "8.3 %" and "(1/12)" in html and rows["64"] == "100.0 %"
    assert "After 62 the smallest lie is 63: it is true only 8.3 % of the time" in html
    first = client.get("/learn?after=").get_data(as_text=True).replace("\u00a0", " ")  # never a forced lie
    rows = re.findall(r'<tr data-value="(\d+)"><td>[^<]+</td><td>[^<]+</td><td>([^<]+) <span', first)
    assert len(rows) == 21 and {true for _, true in rows} == {"100.0 %"}
    for bad in ("21", "x", "99", "Mäxchen"):
        answer = client.get("/learn?after=" + bad)
        text = answer.get_data(as_text=True)
        assert answer.status_code == 400 and "Choose the announcement before" in text, bad


def test_learn_shows_one_part_for_a_projector_and_keeps_it_in_its_forms(client):
    html = client.get("/learn?show=claims&after=64").get_data(as_text=True)
    assert 'data-show="claims"' in html and 'class="learn-page board"' in html
    # Every form asks again in the same part; the switch keeps what was asked.
    assert html.count('<input type="hidden" name="show" value="claims">') == 4
    assert 'href="/learn?after=64&amp;show=time"' in html and 'href="/learn?after=64"' in html  # and Everything
    odd = client.get("/learn?show=time&_anchor=x&_scheme=javascript&_external=1&dice=100").get_data(as_text=True)
    switch = re.search(r'<nav class="board-switch".*?</nav>', odd, re.S)[0]  # url_for's own orders are not passed on
    assert 'href="/learn?dice=100&amp;show=claims"' in switch and "_anchor" not in switch and "javascript" not in switch
    for bad in ("", "nothing", "<b>x</b>", "CLAIMS"):  # anything else: everything, as on a phone
        page = client.get("/learn?show=" + bad).get_data(as_text=True)
        assert 'data-show="all"' in page and 'name="show"' not in page and "<b>x</b>" not in page, bad


def test_a_simulations_seed_is_refused_with_its_range(client):
    for bad in ("1000000000", "-1", "18446744073709551616", "x"):
        answer = client.get(f"/learn?games=10&seat=honest&seat=honest&seed={bad}")
        assert answer.status_code == 400, bad
        assert "Seed must be a whole number from 0 to 999999999." in answer.get_data(as_text=True), bad
    assert client.get("/learn?games=10&seat=honest&seat=honest&seed=999999999").status_code == 200


def test_a_tap_before_the_scripts_ran_is_a_plain_post_that_acts_and_returns_to_the_page(app):
    """A phone that taps while htmx still loads sends the form itself: the move counts, the page comes back."""
    browser = app.test_client()
    browser.post("/table", data={"names": "Anna\nBoris"})
    code = next(iter(_seats(browser)))
    html = browser.get(f"/r/{code}").get_data(as_text=True)
    uncover = re.search(r'<form method="post" action="(/r/\w+/act)" hx-post="\1"[^>]*>(.*?)</form>', html, re.S)
    assert uncover and 'value="uncover"' in uncover[2]
    form = dict(re.findall(r'name="(\w+)" value="([^"]*)"', uncover[2]))
    response = browser.post(uncover[1], data=form)
    assert response.status_code == 303 and response.headers["Location"] == f"/r/{code}"
    assert "Shake the cup." in browser.get(f"/r/{code}").get_data(as_text=True)
    # A refused plain POST shows its reason on a page, and changes nothing.
    refused = browser.post(uncover[1], data=form)
    assert refused.status_code >= 400 and "<html" in refused.get_data(as_text=True)
    # Leaving by a plain POST goes to the name form, as the htmx answer does.
    left = browser.post(uncover[1], data={"action": "leave", "version": version(browser, code)})
    assert left.status_code == 303 and left.headers["Location"] == f"/r/{code}?gone=left"


def test_a_teachers_tap_before_the_scripts_ran_returns_to_the_desk(app):
    teacher = app.test_client()
    response = teacher.post("/classes", data={"name": "Frau Weber"})
    code = response.headers["Location"].rstrip("/").rsplit("/", 1)[1]
    desk = teacher.get(response.headers["Location"]).get_data(as_text=True)
    assert f'method="post" action="/c/{code}/act"' in desk
    answer = teacher.post(f"/c/{code}/act", data={"action": "close", "closed": "1"})
    assert answer.status_code == 303 and answer.headers["Location"] == response.headers["Location"]
    assert 'name="closed" value="0"' in teacher.get(answer.headers["Location"]).get_data(as_text=True)
