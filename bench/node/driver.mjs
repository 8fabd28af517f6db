// Bots on the JSON protocol (docs/API.md) with the stock socket.io-client: rooms of 6 play Mäxchen,
// one action per second per room, as bench/load.py's bots do.
//   node bench/node/driver.mjs URL PLAYERS SECONDS
// Prints "seated" once every socket is open, then one JSON line of figures at the end.
import { io } from "socket.io-client";

const [url, players, seconds] = [process.argv[2], +process.argv[3], +process.argv[4]];
const ROOM = 6;

const post = async (path, body) => {
  const answer = await fetch(url + path, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
  return answer.json();
};

const nextMove = (mine) => {
  if (!mine) return null;
  const allowed = mine.allowed;
  let move = null;
  if (allowed.includes("start")) move = { action: "start" };
  else if (allowed.includes("shake")) move = { action: "shake" };
  else if (allowed.includes("announce")) move = { action: "announce", value: mine.choices[Math.floor(Math.random() * Math.min(3, mine.choices.length))] };
  else if (allowed.includes("check")) {
    const options = ["believe", "accept"].filter((a) => allowed.includes(a));
    move = { action: options.length && Math.random() < 0.6 ? options[Math.floor(Math.random() * options.length)] : "check" };
  }
  if (move) move.version = mine.version;
  return move;
};

const player = (seat) => new Promise((resolve, reject) => {
  const me = { seat, mine: null, version: -1, waits: [] };
  me.socket = io(url, { auth: { token: seat.token }, transports: ["websocket"], reconnection: false });
  me.socket.on("view", (view) => {
    me.mine = view;
    me.version = Math.max(me.version, view.version);
    me.waits = me.waits.filter(([v, done]) => (v <= me.version ? (done(performance.now()), false) : true));
  });
  me.socket.once("connect", () => resolve(me));
  me.socket.once("connect_error", reject);
});

const expect = (me, version) => new Promise((resolve) => {
  if (me.version >= version) resolve(performance.now());
  else me.waits.push([version, resolve]);
});

const seatRoom = async (n) => {
  const host = await post("/api/rooms", { name: `N${n}-0` });
  const seats = [host];
  for (let i = 1; i < ROOM; i++) seats.push(await post(`/api/rooms/${host.code}/players`, { name: `N${n}-${i}` }));
  return Promise.all(seats.map(player));
};

const rooms = [];
for (let n = 0; n < Math.floor(players / ROOM); n += 20) {
  rooms.push(...(await Promise.all(Array.from({ length: Math.min(20, players / ROOM - n) }, (_, k) => seatRoom(n + k)))));
}
console.log("seated");
const latencies = [];
let errors = 0;
let actions = 0;
const until = performance.now() + seconds * 1000;
const drive = async (room) => {
  await new Promise((r) => setTimeout(r, Math.random() * 1000));
  while (performance.now() < until) {
    const tick = performance.now();
    const actor = room.find((p) => nextMove(p.mine));
    if (actor) {
      const target = Math.max(...room.map((p) => p.version)) + 1;
      const others = room.filter((p) => p !== actor).map((p) => expect(p, target));
      const sent = performance.now();
      const answer = await actor.socket.timeout(10000).emitWithAck("action", nextMove(actor.mine)).catch(() => null);
      actions++;
      if (!answer || answer.error) errors++;
      else {
        actor.mine = answer.view;
        actor.version = Math.max(actor.version, answer.view.version);
        const times = await Promise.race([Promise.all(others), new Promise((r) => setTimeout(() => r(null), 10000))]);
        if (times) latencies.push(Math.max(...times) - sent);
        else errors++;
      }
    }
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (performance.now() - tick))));
  }
};
await Promise.all(rooms.map(drive));
for (const room of rooms) for (const p of room) p.socket.close();
latencies.sort((a, b) => a - b);
const pct = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
console.log(JSON.stringify({ players: rooms.length * ROOM, actions, errors, p50: pct(0.5), p95: pct(0.95) }));
process.exit(0);
