import { svg, type TemplateResult } from 'lit';
import qrcode from 'qrcode-generator';

/**
 * A QR code of `text` as an SVG image (qrcode-generator makes the matrix; error correction M, the size it needs).
 * Drawn as one path in a Lit template, not as markup from a string, so it works under the console's CSP (no inline
 * style) and takes the text as data. Dark modules on a white square with the standard 4-module quiet zone, so
 * authenticator apps read it in the dark theme too.
 */
export function qrCodeSvg(text: string, label: string): TemplateResult {
  const code = qrcode(0, 'M');
  code.addData(text, 'Byte');
  code.make();
  const count = code.getModuleCount();
  const quiet = 4;
  const size = count + quiet * 2;
  let path = '';
  for (let row = 0; row < count; row += 1)
    for (let col = 0; col < count; col += 1) if (code.isDark(row, col)) path += `M${col + quiet},${row + quiet}h1v1h-1z`;
  return svg`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" width="220" height="220" role="img"
    aria-label=${label} shape-rendering="crispEdges" data-qr-modules=${count}>
    <rect width=${size} height=${size} fill="#fff"></rect>
    <path d=${path} fill="#000"></path>
  </svg>`;
}
