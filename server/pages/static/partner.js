// Finishes partner sign-in through the API (the sign-in cookie is scoped to
// it) and, for a new account, sends the complete-profile form.
(function () {
  var status = document.getElementById("status"), form = document.getElementById("profile");
  var token = "";
  function say(text, tone) { status.textContent = text; status.className = tone || ""; }
  function fail(body) {
    var e = body && body.error;
    say((e && e.message) || "Sign-in failed. Start again from the sign-in page.", "bad");
  }
  function done(text) {
    say(text, "ok");
    document.getElementById("token").value = token;
    document.getElementById("token-box").hidden = false;
  }
  fetch("/v1/mgmt/auth/partner/callback" + window.location.search, { credentials: "same-origin" })
    .then(function (r) { return r.json().then(function (b) { return { ok: r.ok, body: b }; }); })
    .then(function (res) {
      if (!res.ok) return fail(res.body);
      token = res.body.access_token;
      if (res.body.profile_complete) return done("You are signed in.");
      say("You are signed in.");
      form.hidden = false;
    })
    .catch(function () { fail(null); });
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var v = function (id) { return document.getElementById(id).value; };
    fetch("/v1/mgmt/auth/partner/complete-profile", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Authorization": "Bearer " + token },
      body: JSON.stringify({ first_name: v("first_name"), last_name: v("last_name"), organization_name: v("organization_name"),
        phone: v("phone"), tos_accepted_version: document.getElementById("tos").value })
    })
      .then(function (r) { return r.json().then(function (b) { return { ok: r.ok, body: b }; }); })
      .then(function (res) {
        if (!res.ok) return fail(res.body);
        form.hidden = true;
        done("Your organization is ready. You are signed in.");
      })
      .catch(function () { fail(null); });
  });
})();
