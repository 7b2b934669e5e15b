// Live feedback on the new password; the server checks the policy again.
(function () {
  var pw = document.getElementById("new_password"), again = document.getElementById("confirm_password");
  var hint = document.getElementById("hint"), first = hint.textContent;
  function check() {
    var n = Array.from(pw.value).length;
    if (n > 0 && n < 10) hint.textContent = "Too short: " + n + " of at least 10 characters.";
    else if (again.value && again.value !== pw.value) hint.textContent = "The two passwords differ.";
    else hint.textContent = first;
    again.setCustomValidity(again.value && again.value !== pw.value ? "The two passwords differ." : "");
  }
  pw.addEventListener("input", check);
  again.addEventListener("input", check);
})();
