// Solves the anti-bot puzzle (ALTCHA, SHA-256) that a throttled account's
// sign-in needs, then lets the form be sent; the server checks the answer.
(function () {
  var field = document.getElementById("altcha"), note = document.getElementById("challenge");
  var button = document.getElementById("sign-in");
  if (!field || !window.crypto || !window.crypto.subtle) return;
  button.disabled = true;
  function hex(buf) {
    return Array.from(new Uint8Array(buf)).map(function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }
  // Digests run a batch at a time: one await per number would take the
  // browser seconds where a batch takes a fraction of one.
  async function solve(c) {
    var enc = new TextEncoder(), batch = 1000;
    for (var from = 0; from <= c.maxNumber; from += batch) {
      var tries = [];
      for (var n = from; n < from + batch && n <= c.maxNumber; n++) {
        tries.push(crypto.subtle.digest("SHA-256", enc.encode(c.salt + n)));
      }
      var sums = await Promise.all(tries);
      for (var i = 0; i < sums.length; i++) {
        if (hex(sums[i]) === c.challenge) return from + i;
      }
    }
    return -1;
  }
  fetch("/v1/mgmt/auth/challenge", { credentials: "omit" })
    .then(function (r) { return r.json(); })
    .then(function (c) {
      return solve(c).then(function (n) {
        if (n < 0) throw new Error("no solution");
        field.value = btoa(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: n, salt: c.salt, signature: c.signature }));
        note.textContent = "Puzzle solved: you can sign in.";
        button.disabled = false;
      });
    })
    .catch(function () { note.textContent = "The puzzle could not be solved. Sign in with a link by mail below."; });
})();
