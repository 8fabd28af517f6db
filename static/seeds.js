// A cup's dice from its seeds, and the commit its server seed opens, as maxchen/fair.py has them (`faces`,
// `commit_of`): one copy for the room's checker (fair-check.js) and the page /fair (check.js). Needs js-sha256.
window.fairSeeds = (() => {
  "use strict";

  const FAIR = "1,1,1,1,1,1";

  // `weights`: six whole numbers, or none (fair dice). HMAC-SHA256(server seed, message:counter), byte by byte.
  function roll(serverSeed, message, weights, count) {
    const scale = weights && weights.length ? weights : [1, 1, 1, 1, 1, 1];
    const total = scale.reduce((a, b) => a + b, 0);
    const limit = 256 - (256 % total);
    const dice = [];
    for (let counter = 0; dice.length < count && counter < 64; counter++) {
      for (const byte of sha256.hmac.array(serverSeed, message + ":" + counter)) {
        if (byte >= limit || dice.length === count) continue;
        let rest = byte % total, face = 0;
        while (rest >= scale[face]) rest -= scale[face++];
        dice.push(face + 1);
      }
    }
    return dice;
  }

  // A loaded cup's commit covers its weights (sha256 of "seed:3,3,3,3,3,5"): its loading was fixed before
  // the shake. A fair cup's is sha256 of the seed alone.
  const commit = (serverSeed, weights) =>
    sha256(serverSeed + (weights && weights.length && weights.join() !== FAIR ? ":" + weights.join() : ""));

  return { roll, commit };
})();
