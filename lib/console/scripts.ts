/*
 * The small scripts of every page (docs/api.md 15.1), allowed by their hashes: each only
 * adds to a page that works without it.
 */

/** A form with `data-confirm` asks before it is sent. */
export const CONFIRM_SCRIPT = `'use strict';
document.querySelectorAll('form[data-confirm]').forEach((form) => {
  form.addEventListener('submit', (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
});
`;

/** A hidden button `data-copy="<id>"` is shown, and copies the text of the element of that id. */
export const COPY_SCRIPT = `'use strict';
if (navigator.clipboard) document.querySelectorAll('button[data-copy]').forEach((button) => {
  const source = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.copy + '-copied');
  if (!source) return;
  button.hidden = false;
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(source.textContent.trim()).then(() => { if (status) status.textContent = button.dataset.done; });
  });
});
`;

/** The scripts of every page. */
export const FRAME_SCRIPTS = [CONFIRM_SCRIPT, COPY_SCRIPT];
