// The Console's only script of its own. Pages are server-rendered and work
// without it; it makes them live without costing anything in a tab nobody
// looks at. Loaded after htmx and idiomorph (script-src 'self', no eval).
(function () {
  'use strict';

  // Log out ends the login before its answer reaches the browser. A poll
  // answered in between finds the login gone and reloads the page, over
  // the answer that says the reader logged out; so once Log out is sent,
  // the page asks nothing more and drops the answers still on their way.
  // A page shown again from the back-forward cache polls as before.
  var leaving = false;
  document.addEventListener('submit', function (e) {
    if (e.target.matches('form.logout')) leaving = true;
  });
  document.addEventListener('htmx:beforeOnLoad', function (e) {
    if (leaving) e.preventDefault();
  });
  window.addEventListener('pageshow', function (e) {
    if (e.persisted) leaving = false;
  });

  // The change-cursor poll (#live) asks nothing while the tab is hidden,
  // and once at once when the tab shows again.
  document.addEventListener('htmx:confirm', function (e) {
    if (leaving || (document.hidden && e.target.id === 'live')) e.preventDefault();
  });
  document.addEventListener('visibilitychange', function () {
    if (!document.hidden) htmx.trigger(document.body, 'wr-wake');
  });

  // A morph keeps what the reader opened: a <details> the server renders
  // closed stays open in the page.
  Idiomorph.defaults.callbacks.beforeAttributeUpdated = function (attr, el, how) {
    return !(attr === 'open' && how === 'remove' && el.tagName === 'DETAILS');
  };

  // A Copy button (hidden without this script) copies the text of the
  // element its data-copy names, e.g. a stateToken to hand a chat. A live
  // panel's refresh brings its buttons back hidden, so they are shown again.
  var showCopy = function (root) {
    root.querySelectorAll('button[data-copy]').forEach(function (b) { b.hidden = false; });
  };
  showCopy(document);
  document.addEventListener('htmx:afterSettle', function (e) { showCopy(e.target); });
  document.addEventListener('click', function (e) {
    var b = e.target.closest && e.target.closest('button[data-copy]');
    var from = b && document.getElementById(b.getAttribute('data-copy'));
    if (!from) return;
    // Where the clipboard is not allowed, the text is selected to copy by hand.
    var select = function () { window.getSelection().selectAllChildren(from); };
    if (!navigator.clipboard) return select();
    navigator.clipboard.writeText(from.textContent).then(function () { b.textContent = 'Copied'; }, select);
  });

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

  // The workflow editor's textarea (#text). Tab and Shift+Tab indent and
  // outdent (Esc, then Tab, leaves the textarea as usual); a problem's
  // line:column link puts the cursor there; a builtin's Insert button puts
  // its snippet at the cursor; a name being typed in quotes is completed
  // from the builtins panel. Without this script the links jump to the
  // textarea and the snippets are there to copy.
  var editor = document.getElementById('text');
  if (editor && editor.tagName === 'TEXTAREA') enhanceEditor(editor);

  function enhanceEditor(editor) {
    var unit = '  ';

    // edit replaces editor text [from, to) with s as typing would: kept in
    // the undo history, and an input event sent for the check as you type.
    function edit(from, to, s) {
      editor.focus();
      editor.setSelectionRange(from, to);
      if (!document.execCommand('insertText', false, s)) {
        editor.setRangeText(s, from, to, 'end');
        editor.dispatchEvent(new Event('input', { bubbles: true }));
      }
    }

    completeNames(editor, edit);

    var leaving = false;
    editor.addEventListener('keydown', function (e) {
      var left = leaving;
      leaving = e.key === 'Escape';
      if (e.key !== 'Tab' || left || e.ctrlKey || e.altKey || e.metaKey) return;
      e.preventDefault();
      var v = editor.value, from = editor.selectionStart, to = editor.selectionEnd;
      if (!e.shiftKey && v.slice(from, to).indexOf('\n') < 0) {
        edit(from, to, unit);
        return;
      }
      // Whole lines: from the start of the first selected one to the end of
      // the last (a selection ending at a line's start leaves that line out).
      var first = v.lastIndexOf('\n', from - 1) + 1;
      var last = to > from && v[to - 1] === '\n' ? to - 1 : to;
      var stop = v.indexOf('\n', last);
      if (stop < 0) stop = v.length;
      var lines = v.slice(first, stop).split('\n');
      var out = lines.map(function (l) { return e.shiftKey ? l.replace(/^( {1,2}|\t)/, '') : unit + l; });
      var shift = out[0].length - lines[0].length;
      edit(first, stop, out.join('\n'));
      if (from === to) {
        var at = Math.max(first, from + shift);
        editor.setSelectionRange(at, at);
      } else {
        editor.setSelectionRange(first, first + out.join('\n').length);
      }
    });

    // offsetOf is where line:column (1-based; columns count characters, as
    // the validator does) falls in the text.
    function offsetOf(line, col) {
      var lines = editor.value.split('\n');
      var at = 0;
      for (var i = 0; i < line - 1 && i < lines.length; i++) at += lines[i].length + 1;
      var chars = Array.from(lines[line - 1] || '');
      for (var j = 0; j < col - 1 && j < chars.length; j++) at += chars[j].length;
      return at;
    }

    document.querySelectorAll('button.insert[data-snippet]').forEach(function (b) { b.hidden = false; });
    document.addEventListener('click', function (e) {
      var jump = e.target.closest && e.target.closest('a.jump[data-line]');
      if (jump) {
        e.preventDefault();
        var line = Number(jump.getAttribute('data-line'));
        var at = offsetOf(line, Number(jump.getAttribute('data-col')));
        editor.focus();
        editor.setSelectionRange(at, at);
        var height = parseFloat(getComputedStyle(editor).lineHeight) || 18;
        editor.scrollTop = Math.max(0, (line - 1) * height - editor.clientHeight / 3);
        return;
      }
      var insert = e.target.closest && e.target.closest('button.insert[data-snippet]');
      if (insert) {
        // The snippet's later lines take the indentation of the cursor's line.
        var v = editor.value, from = editor.selectionStart;
        var indent = /^[ \t]*/.exec(v.slice(v.lastIndexOf('\n', from - 1) + 1))[0];
        edit(from, editor.selectionEnd, insert.getAttribute('data-snippet').split('\n').join('\n' + indent));
      }
    });
  }

  // completeNames offers, while a quoted word is typed (two characters at
  // least), the builtins whose names start with it, read from the builtins
  // panel, which the server generates from the catalog. Arrow keys move,
  // Enter or Tab takes one, Escape closes; a click takes one too. With the
  // list closed, every key does what it did.
  function completeNames(editor, edit) {
    var names = Array.prototype.map.call(document.querySelectorAll('[data-testid="builtin"][data-builtin]'), function (li) {
      return { name: li.getAttribute('data-builtin'), kind: li.getAttribute('data-kind') };
    });
    if (!names.length) return;
    var list = document.createElement('ul');
    list.id = 'completions';
    list.className = 'completions';
    list.setAttribute('role', 'listbox');
    list.setAttribute('aria-label', 'Builtin names');
    list.hidden = true;
    editor.insertAdjacentElement('afterend', list);
    editor.setAttribute('aria-autocomplete', 'list');
    editor.setAttribute('aria-controls', 'completions');
    var prefix = '', active = 0, shown = [];

    function close() {
      list.hidden = true;
      shown = [];
      editor.removeAttribute('aria-activedescendant');
    }
    function mark() {
      Array.prototype.forEach.call(list.children, function (li, i) { li.setAttribute('aria-selected', String(i === active)); });
      editor.setAttribute('aria-activedescendant', 'completion-' + active);
    }
    function take(i) {
      var at = editor.selectionStart;
      var name = shown[i].name;
      close();
      edit(at - prefix.length, at, name);
    }
    editor.addEventListener('input', function () {
      var at = editor.selectionStart;
      var m = editor.selectionEnd === at && /"([A-Za-z_][\w.\-]+)$/.exec(editor.value.slice(Math.max(0, at - 80), at));
      prefix = m ? m[1] : '';
      shown = prefix ? names.filter(function (n) { return n.name.indexOf(prefix) === 0 && n.name !== prefix; }).slice(0, 8) : [];
      if (!shown.length) return close();
      list.replaceChildren.apply(list, shown.map(function (n, i) {
        var li = document.createElement('li');
        li.id = 'completion-' + i;
        li.setAttribute('role', 'option');
        li.setAttribute('data-name', n.name);
        var code = document.createElement('code');
        code.textContent = n.name;
        li.append(code, ' ' + n.kind.replace('_', ' '));
        return li;
      }));
      active = 0;
      list.hidden = false;
      mark();
    });
    editor.addEventListener('keydown', function (e) {
      if (list.hidden) return;
      var n = shown.length;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        active = (active + (e.key === 'ArrowDown' ? 1 : n - 1)) % n;
        mark();
      } else if (e.key === 'Enter' || (e.key === 'Tab' && !e.shiftKey)) {
        take(active);
      } else if (e.key === 'Escape') {
        close();
      } else {
        return;
      }
      e.preventDefault();
      e.stopImmediatePropagation();
    });
    editor.addEventListener('blur', function () { setTimeout(close, 150); });
    list.addEventListener('mousedown', function (e) {
      var li = e.target.closest('li[role="option"]');
      if (!li) return;
      e.preventDefault();
      take(Number(li.id.slice('completion-'.length)));
    });
  }
})();
