// The console's operators by use case: who they are (model), their credentials, sessions, signing
// in, the second factor, invitations and the team. Importers outside this folder read them from here.
export * from './model.js';
export * from './credentials.js';
export * from './sessions.js';
export * from './sign-in.js';
export * from './totp.js';
export * from './invitations.js';
export * from './team.js';
