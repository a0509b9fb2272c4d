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
// A deployment's log, followed while the deployment runs (docs/product.md §10). Without this script the
// page shows the lines stored when it was loaded, with links to page through them.
document.querySelectorAll('ol.log[data-follow]').forEach(function (list) {
  if (!window.EventSource) return;
  var state = document.querySelector('[data-log-state]');
  var empty = document.querySelector('[data-log-empty]');
  // Followed, the list scrolls on its own and stays at its end while the reader is there.
  list.classList.add('log-scroll');
  var atBottom = function () { return list.scrollHeight - list.scrollTop - list.clientHeight < 40; };
  list.scrollTop = list.scrollHeight;
  var source = new window.EventSource(list.getAttribute('data-follow'));
  source.addEventListener('line', function (event) {
    var line = JSON.parse(event.data);
    var follow = atBottom();
    var item = document.createElement('li');
    item.className = 'log-line log-' + line.stream;
    item.id = 'L' + line.seq;
    var seq = document.createElement('span');
    seq.className = 'log-seq';
    seq.textContent = String(line.seq);
    var text = document.createElement('span');
    text.className = 'log-text';
    text.textContent = line.text;
    item.appendChild(seq);
    item.appendChild(text);
    if (line.stream !== 'stdout') {
      var kind = document.createElement('span');
      kind.className = 'visually-hidden';
      kind.textContent = ' (' + line.stream + ')';
      item.appendChild(kind);
    }
    list.appendChild(item);
    if (empty) empty.hidden = true;
    if (follow) list.scrollTop = list.scrollHeight;
  });
  source.addEventListener('status', function (event) {
    if (state) state.textContent = 'Status: ' + JSON.parse(event.data).status + '.';
  });
  source.addEventListener('end', function (event) {
    source.close();
    if (state) state.textContent = 'The deployment has finished (' + JSON.parse(event.data).status + '); reload the page for its new status.';
  });
  document.querySelectorAll('[data-log-jump]').forEach(function (jump) {
    jump.addEventListener('click', function () { list.scrollTop = list.scrollHeight; });
  });
});
