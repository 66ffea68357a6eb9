/** Has the browser save `file` under `filename` (a download), from memory: an object URL on a temporary link. */
export function saveFile(file: Blob, filename: string): void {
  const url = URL.createObjectURL(file);
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // The download has taken the bytes once click() returns in every browser; a moment later is safe for all.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
