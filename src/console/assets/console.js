// The console's own script: enhancements only, every page works without it.
// Keyboard shortcuts (`/` search, `g` then a section's key, `?` the list), copy buttons.
// Loaded with `defer` from the same origin (the CSP allows no inline script).
(() => {
  const typing = (el) => el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  let pendingG = 0;

  document.addEventListener('keydown', (event) => {
    if (event.metaKey || event.ctrlKey || event.altKey || typing(document.activeElement)) return;
    if (event.key === '/') {
      const search = document.querySelector('input[type=search]');
      if (search) {
        event.preventDefault();
        search.focus();
        search.select();
      }
      return;
    }
    if (event.key === '?') {
      const list = document.getElementById('shortcuts');
      if (list) {
        list.open = true;
        list.querySelector('summary').focus();
        list.scrollIntoView({ block: 'nearest' });
      }
      return;
    }
    if (event.key === 'g') {
      pendingG = Date.now();
      return;
    }
    if (pendingG && Date.now() - pendingG < 1500) {
      pendingG = 0;
      const link = document.querySelector(`a[data-key="${CSS.escape(event.key)}"]`);
      if (link) {
        event.preventDefault();
        window.location.assign(link.href);
      }
    }
  });

  function enhanceCopyButtons(root) {
    for (const button of root.querySelectorAll('button[data-copy]')) {
      if (!navigator.clipboard) continue;
      button.hidden = false;
      if (button.dataset.ready) continue;
      button.dataset.ready = '1';
      button.addEventListener('click', async () => {
        await navigator.clipboard.writeText(button.dataset.copy);
        const label = button.textContent;
        button.textContent = 'Copied';
        setTimeout(() => {
          button.textContent = label;
        }, 1500);
      });
    }
  }

  document.addEventListener('DOMContentLoaded', () => enhanceCopyButtons(document));
  document.addEventListener('htmx:afterSwap', (event) => enhanceCopyButtons(event.target));
})();

// ---- The campaign builder (src/campaigns/builderPage.ts) ----
// Its buttons that change the draft (add a step here, move, remove, update) post the form and swap
// the builder alone, keeping the page where it was; "Save" stays a plain submit (it redirects).
// Without JavaScript each button re-renders the whole page, with the same result.
(() => {
  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element && event.target.closest('button[name="action"]');
    const form = button?.form;
    if (!button || !form?.classList.contains('campaign-builder') || button.value === 'save' || !window.htmx)
      return;
    event.preventDefault();
    // getAttribute: `form.action` is the buttons named "action".
    window.htmx.ajax('POST', form.getAttribute('action'), {
      source: form,
      target: '#campaign-builder',
      select: '#campaign-builder',
      swap: 'outerHTML',
      values: { action: button.value },
    });
  });
  // Another channel chosen: its fields, at once.
  document.addEventListener('change', (event) => {
    const select = event.target;
    if (!(select instanceof HTMLSelectElement) || !select.name.endsWith('.channel')) return;
    if (!select.form?.classList.contains('campaign-builder')) return;
    select.closest('.builder-row')?.querySelector('button[value="refresh"]')?.click();
  });
  // A refusal of the JSON view (400) is a page to show, like the one without JavaScript.
  document.addEventListener('htmx:beforeSwap', (event) => {
    if (event.detail.target?.id === 'campaign-builder' && event.detail.xhr.status === 400) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
  document.addEventListener('htmx:afterSwap', () => {
    const focus = document.querySelector('#campaign-builder [autofocus]');
    if (focus) focus.focus();
  });
})();

// ---- Reports (src/campaigns/reportConsole.ts): the period form shows its date fields only when
// "From – to" is chosen. Without this script they are always there (and read only with it).
(() => {
  const enhance = () => {
    const period = document.getElementById('report-period');
    const dates = document.querySelector('.report-period .report-dates');
    if (!period || !dates) return;
    const toggle = () => {
      dates.hidden = period.value !== 'custom';
    };
    period.addEventListener('change', toggle);
    toggle();
  };
  document.addEventListener('DOMContentLoaded', enhance);
})();

// ---- A broadcast's live progress (src/campaigns/consoleProgress.ts) ----
// The figures section follows the page's server-sent events: each event is the section rendered
// by the server (escaped there, as the page is); the server ends the stream when the broadcast
// finishes. Without EventSource the page keeps its Refresh link.
(() => {
  const follow = () => {
    const section = document.querySelector('[data-progress-stream]');
    if (!section || !('EventSource' in window)) return;
    const source = new EventSource(section.dataset.progressStream);
    source.addEventListener('progress', (event) => {
      section.innerHTML = event.data;
    });
    source.addEventListener('end', () => {
      source.close();
      section.removeAttribute('data-progress-stream');
    });
  };
  document.addEventListener('DOMContentLoaded', follow);
})();
