// The portal works without this script; it only adds copy buttons to the key and link shown once.
// Loaded as a file (the Content-Security-Policy allows no inline script).
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  if (!field) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(field.value);
      button.textContent = 'Copied';
    } catch {
      // No clipboard access (a page served over plain HTTP elsewhere than localhost): select for Ctrl+C.
      field.select();
      button.textContent = 'Selected: press Ctrl+C';
    }
  });
}
