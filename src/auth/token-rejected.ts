/** Why a token was refused: a fixed ASCII sentence, never text from the token (it goes into a header). */
export class TokenRejected extends Error {
  override readonly name = "TokenRejected";
}
