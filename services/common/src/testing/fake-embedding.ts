// STUB (contract for issue 13; replaced by the embeddings work): the fake OpenAI's embedding of a
// text, deterministic, so tests and the retrieval evaluation run without a real model.
export const FAKE_EMBEDDING_DIMENSIONS = 256;

export function fakeEmbedding(_text: string, dimensions = FAKE_EMBEDDING_DIMENSIONS): number[] {
  const v = new Array<number>(dimensions).fill(0);
  v[0] = 1;
  return v;
}
