// The merchant's own page code: react to the checkout's events.
document.querySelector('renew-checkout')?.addEventListener('renew-checkout-complete', () => {
  document.getElementById('welcome')?.removeAttribute('hidden');
});
