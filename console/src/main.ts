import './page.css';
import './renew-console.js';
