// The Console's only script of its own. Pages are server-rendered and work
// without it; it makes them live without costing anything in a tab nobody
// looks at. Loaded after htmx and idiomorph (script-src 'self', no eval).
(function () {
  'use strict';

  // The change-cursor poll (#live) asks nothing while the tab is hidden,
  // and once at once when the tab shows again.
  document.addEventListener('htmx:confirm', function (e) {
    if (document.hidden && e.target.id === 'live') e.preventDefault();
  });
  document.addEventListener('visibilitychange', function () {
    if (!document.hidden) htmx.trigger(document.body, 'wr-wake');
  });

  // A morph keeps what the reader opened: a <details> the server renders
  // closed stays open in the page.
  Idiomorph.defaults.callbacks.beforeAttributeUpdated = function (attr, el, how) {
    return !(attr === 'open' && how === 'remove' && el.tagName === 'DETAILS');
  };

  // After a live panel refreshed, its server-written summary is read out
  // in the one polite live region, only when it differs from what the
  // panel said before (never on page load).
  var said = {};
  document.querySelectorAll('[data-announce]').forEach(function (p) {
    said[p.id] = p.getAttribute('data-announce');
  });
  document.addEventListener('htmx:afterSettle', function (e) {
    var panel = e.target.closest && e.target.closest('[data-announce]');
    var region = document.getElementById('announce');
    if (!panel || !region) return;
    var text = panel.getAttribute('data-announce');
    if (text && said[panel.id] !== text) region.textContent = text;
    said[panel.id] = text;
  });
})();
