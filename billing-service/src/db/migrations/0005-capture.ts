import { sql, type Kysely } from 'kysely';

/**
 * The card-capture host: CAPTCHA response tokens already spent. Only a SHA-256
 * of each token is kept; an insert that conflicts means the token is reused.
 * Rows older than a day are swept (a reCAPTCHA token expires after two minutes).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table used_captcha_tokens (
      token_hash text primary key,
      used_at timestamptz not null default now()
    );
    create index used_captcha_tokens_used_at on used_captcha_tokens (used_at);
  `.execute(db);
}
