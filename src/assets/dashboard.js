'use strict';
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  var id = button.getAttribute('data-copy');
  var field = document.getElementById(id);
  var status = document.querySelector('[data-copy-status="' + id + '"]');
  if (!field) return;
  button.hidden = false;
  function report(ok) {
    if (status) status.textContent = ok ? 'Copied to the clipboard.' : 'Could not copy automatically: the value is selected, copy it with your keyboard.';
  }
  button.addEventListener('click', function () {
    field.focus();
    field.select();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(function () { report(true); }, function () { report(document.execCommand('copy')); });
    } else {
      report(document.execCommand('copy'));
    }
  });
});
