"""Each screen shows the moment, in Chromium against the real server: a one-phone cover tells a check once, the
TV's "… is gone" leaves with the next move, and a late comer's phone says its seat before the host plays again."""

import pytest

from maxchen.client import create_room, join_room

from . import look
from .test_browser import Phone, _api_act, announce, peek, shake_by_keys

# One language per size: the phone upright, the smallest, the phone on its side.
PHONES = [((390, 844), "en-US"), ((360, 640), "de-DE"), ((844, 390), "ru-RU")]
LATE = {
    "en-US": "A seat is yours: you play in the next game.",
    "de-DE": "Ein Platz ist dein: Im nächsten Spiel bist du dabei.",
    "ru-RU": "Место за тобой: ты играешь в следующей партии.",
}


def phone_at(browser, server, size, locale) -> Phone:
    phone = Phone(browser, server.url, locale)
    phone.page.set_viewport_size({"width": size[0], "height": size[1]})
    return phone


def tag(size, locale) -> str:
    return f"{size[0]}x{size[1]}-{locale[:2]}"


@pytest.mark.parametrize(("size", "locale"), PHONES, ids=[tag(*p) for p in PHONES])
def test_a_one_phone_poschen_game_shows_each_check_on_one_cover_only(browser, server, size, locale):
    """Every pass of the phone is looked at: the cover right after a check shows that check (to the player who
    called it and the table), every other cover only whose turn it is, never an earlier round's dice."""
    phone = phone_at(browser, server, size, locale)
    page = phone.page
    page.goto(server.url + "/")
    page.fill("form[action='/table'] textarea[name=names]", "Anna\nBoris\nCarla")
    page.check("form[action='/table'] input[name=rules][value=poschen]")
    page.locator("form[action='/table'] select[name='option.lives']").select_option("3")
    page.click("form[action='/table'] button[type=submit]")
    page.wait_for_selector(".cover")
    page.wait_for_load_state()  # its scripts too: a tap before them would be the browser's own form submit
    checked = False  # the last move was a check
    believed = -1  # the round in which a claim was believed (one a round: the phone is passed within it too)
    covers = {"fresh": 0, "plain": 0}
    shot_plain = False
    whole = (size, locale) == PHONES[0]  # one size plays to the end; the others until two checks' covers
    for _ in range(120):
        page.wait_for_selector(".cover, .result")
        if page.locator(".result").count() or (not whole and covers["fresh"] >= 2 and covers["plain"] >= 4):
            break
        round_ = int(phone.meta()["round"])
        shown = page.locator(".cover .reveal")
        if checked:
            # Right after the check: its result, once, of the round just ended.
            assert shown.count() == 1 and int(shown.get_attribute("data-round")) == round_ - 1
            assert page.locator(".cover .die").count() == 2
            covers["fresh"] += 1
            if covers["fresh"] == 1:
                phone.shot(f"moment-cover-checked-{tag(size, locale)}")
        else:
            # Any other pass: whose turn it is, and nothing older.
            assert shown.count() == 0 and page.locator(".cover .die, .cover [class*='face-']").count() == 0
            covers["plain"] += 1
            if covers["fresh"] == 1 and not shot_plain:  # the pass after the first check's round went on
                shot_plain = True
                phone.shot(f"moment-cover-plain-{tag(size, locale)}")
        page.click(".cover button[data-action=uncover]")
        page.wait_for_selector(".cover", state="detached")
        if page.locator("#controls button[data-action=check]").count():
            if believed != round_ and page.locator("#controls button[data-action=believe]").count():
                believed = round_
                page.click("#controls button[data-action=believe]")
            else:
                page.click("#controls button[data-action=check]")
                checked = True
                continue
        page.wait_for_selector("#cup.my-turn")
        shake_by_keys(phone)
        peek(phone, [])
        page.wait_for_selector("form.announce input[name=value]", state="attached")
        announce(phone, page.eval_on_selector_all("form.announce input[name=value]", "xs => +xs[0].value"))
        checked = False
    else:
        raise AssertionError("the game did not end")
    assert covers["fresh"] >= 2 and covers["plain"] >= 4, covers
    assert phone.errors == []
    phone.context.close()


BOARDS = [((1280, 720), "en-US"), ((1920, 1080), "de-DE"), ((1280, 720), "ru-RU")]
GONE = {"en-US": "is gone", "de-DE": "ist weg", "ru-RU": "больше нет за столом"}
WAITS = {
    "en-US": "is offline: the game waits.",
    "de-DE": "ist offline: das Spiel wartet.",
    "ru-RU": "не в сети: игра ждёт.",
}


@pytest.mark.parametrize(("size", "locale"), BOARDS, ids=[tag(*b) for b in BOARDS])
def test_the_tv_board_drops_is_gone_with_the_next_move_and_says_whom_it_waits_for(browser, server, size, locale):
    ann = create_room(server.url, "Ann")
    code = ann["code"]
    ben = join_room(server.url, code, "Ben")
    cem = join_room(server.url, code, "Cem")
    board = phone_at(browser, server, size, locale)
    board.page.goto(f"{server.url}/r/{code}/board")
    board.page.wait_for_selector("#players .player >> nth=2")

    def act(seat, **body):
        answer = _api_act(server.url, code, seat["token"], **body)
        assert answer.status_code == 200, answer.text
        return answer.json()

    act(ann, action="start")
    act(ann, action="shake")
    act(ann, action="announce", value=31)
    # Cem leaves mid-round: the round starts again, and the TV says why.
    act(cem, action="leave")
    notice = board.page.locator("#table .notice", has_text=GONE[locale])
    notice.wait_for()
    assert "Cem" in notice.inner_text() and look.in_view(board.page, "#table .notice")
    # No phone of Ben's is connected: the turn line says the game waits for him, not that he shakes.
    status = board.page.locator("#table .status .theirs")
    assert status.inner_text() == f"Ben {WAITS[locale]}"
    board.shot(f"moment-board-gone-{tag(size, locale)}")
    # Ben's shake is the new round's first move: the notice has had its moment, and stays gone.
    act(ben, action="shake")
    notice.wait_for(state="detached")
    act(ben, action="announce", value=32)
    version = act(ann, action="believe")["version"]
    act(ann, action="shake")
    act(ann, action="announce", value=41)
    board.page.wait_for_function(
        "(v) => +document.querySelector('#table').dataset.version > v", arg=version, timeout=10_000
    )
    assert board.page.locator("#table .notice", has_text=GONE[locale]).count() == 0
    board.shot(f"moment-board-after-{tag(size, locale)}")
    assert board.errors == []
    board.context.close()


def play_out_by_api(base, code, seats):
    """Play the game to its end over the API: shake, announce the lowest, check."""
    import requests

    by_player = {seat["player"]: seat for seat in seats}
    for _ in range(300):
        view = requests.get(
            f"{base}/api/rooms/{code}", headers={"Authorization": f"Bearer {seats[0]['token']}"}, timeout=10
        ).json()
        if view["phase"] != "playing":
            return
        seat = by_player[view["turn"]["player"]]
        mine = requests.get(
            f"{base}/api/rooms/{code}", headers={"Authorization": f"Bearer {seat['token']}"}, timeout=10
        ).json()
        allowed = mine["allowed"]
        body = (
            {"action": "check"}
            if "check" in allowed
            else {"action": "shake"}
            if "shake" in allowed
            else {"action": "announce", "value": mine["choices"][0]}
        )
        assert _api_act(base, code, seat["token"], **body).status_code == 200
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(("size", "locale"), PHONES, ids=[tag(*p) for p in PHONES])
def test_a_late_comers_phone_says_its_seat_before_play_again_and_then_plays(browser, server, size, locale):
    ann = create_room(server.url, "Ann")
    code = ann["code"]
    ben = join_room(server.url, code, "Ben")
    _api_act(server.url, code, ann["token"], action="start")
    # Cem sits down on his phone during the game: he watches it.
    cem = phone_at(browser, server, size, locale)
    cem.page.goto(f"{server.url}/r/{code}")
    cem.page.fill("main input[name=name]", "Cem")
    cem.page.click("main form button[type=submit]")
    cem.page.wait_for_selector("#controls p.wait")
    assert cem.page.locator("#controls .seat-yours").count() == 0
    play_out_by_api(server.url, code, [ann, ben])
    # The game is over; the host has not pressed Play again: Cem's phone says a seat is his.
    cem.page.wait_for_selector("#controls .seat-yours")
    assert cem.page.inner_text("#controls .seat-yours") == LATE[locale]
    assert look.in_view(cem.page, "#controls .seat-yours")
    joining = cem.page.locator("#table .notice.joining")
    assert "Cem" in joining.inner_text()
    cem.page.wait_for_selector("#reveal-overlay", state="hidden", timeout=20_000)  # the last check, staged
    cem.shot(f"moment-late-comer-{tag(size, locale)}")
    # Play again: Cem plays.
    assert _api_act(server.url, code, ann["token"], action="start").status_code == 200
    cem.page.wait_for_selector("#table [data-meta][data-phase=playing]", state="attached")
    cem.page.wait_for_selector("#controls .seat-yours", state="detached")
    assert cem.page.locator("#players .player.me .tag", has_text="next game").count() == 0
    assert cem.errors == []
    cem.context.close()
