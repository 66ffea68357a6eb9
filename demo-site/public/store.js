// The merchant's own page code: react to the checkout's events.
const checkout = document.querySelector('renew-checkout');
checkout?.addEventListener('renew-checkout-complete', () => {
  document.getElementById('welcome')?.removeAttribute('hidden');
});

// Try the checkout's options from the address bar: ?lang=fr, ?terms-url=/terms, ?coupons=off.
const options = new URLSearchParams(location.search);
for (const name of ['lang', 'terms-url', 'coupons']) {
  const value = options.get(name);
  if (value && checkout) checkout.setAttribute(name, value);
}
