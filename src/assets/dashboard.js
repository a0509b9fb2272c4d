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
// A project's page follows its deployments (docs/product.md §10): when one changes, the page's regions
// marked data-live-region (what is live, the chart, the list) are fetched again as the server renders
// them and put in place. Without this script the page shows what was true when it was loaded.
document.querySelectorAll('[data-live-stream]').forEach(function (section) {
  if (!window.EventSource || !window.fetch || !window.DOMParser) return;
  var state = document.querySelector('[data-live-state]');
  var pending = null;
  var running = false;
  var said = '';
  function refresh() {
    pending = null;
    if (running) { pending = setTimeout(refresh, 300); return; }
    running = true;
    window.fetch(window.location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } }).then(function (response) {
      return response.ok ? response.text() : Promise.reject(new Error(String(response.status)));
    }).then(function (text) {
      var fresh = new window.DOMParser().parseFromString(text, 'text/html');
      document.querySelectorAll('[data-live-region]').forEach(function (region) {
        var next = fresh.querySelector('[data-live-region="' + region.getAttribute('data-live-region') + '"]');
        // A region that holds the focus (a form being used) is left as it is.
        if (next && !region.contains(document.activeElement)) region.replaceWith(document.importNode(next, true));
      });
      if (state) state.textContent = said;
    }).catch(function () {
      if (state) state.textContent = 'Could not update the page; reload it to see the latest deployments.';
    }).then(function () { running = false; });
  }
  var source = new window.EventSource(section.getAttribute('data-live-stream'));
  // The stream tells of changes from when it opens: each time it opens (the first time, and after the
  // browser reconnected on its own) what changed since the page was read is read again.
  source.addEventListener('open', function () {
    if (pending) clearTimeout(pending);
    pending = setTimeout(refresh, 0);
  });
  source.addEventListener('deployment', function (event) {
    var d = JSON.parse(event.data);
    said = 'Deployment to ' + d.environment + ' is now ' + d.status + '.';
    if (pending) clearTimeout(pending);
    pending = setTimeout(refresh, 150);
  });
  window.addEventListener('pagehide', function () { source.close(); });
});
