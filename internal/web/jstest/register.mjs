// Loaded with `node --import ./register.mjs`: installs imports.mjs.
import { register } from 'node:module';

register('./imports.mjs', import.meta.url);
