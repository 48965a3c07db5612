/* The dataset's arena: the members' small arrays (blocks, sets, truth
 * tables, map ids), carved from chunks freed together with the dataset. */
#include "io/store.h"

#include <stdint.h>

/* The dataset's arena (struct mxn_dataset): chunks of ARENA_CHUNK bytes,
 * zeroed, each array 16-byte aligned; one larger than a quarter chunk gets
 * a chunk of its own, behind the newest so that one's room stays in use.
 * Under AddressSanitizer every array is a chunk of its own, so an overrun
 * from one into the next is still caught. */
struct mxn__chunk {
  struct mxn__chunk *next;
  size_t cap; /* its data's bytes (the field also keeps the data 16-byte aligned) */
  unsigned char data[];
};
#define ARENA_CHUNK ((size_t)32 << 10)

/* n zeroed elements of `size` from the arena; NULL out of memory. */
void *mxn__arena_calloc(mxn_dataset_t *ds, size_t n, size_t size) {
  if (size && n > (SIZE_MAX - 2 * ARENA_CHUNK) / size) return NULL;
  size_t bytes = (n * size + 15) & ~(size_t)15;
  if (ds->st.arena && bytes <= ds->st.arena_cap - ds->st.arena_used) {
    void *p = ds->st.arena->data + ds->st.arena_used;
    ds->st.arena_used += bytes;
    return p;
  }
  int own = MXN_ASAN || bytes > ARENA_CHUNK / 4;
  size_t cap = own ? bytes : ARENA_CHUNK;
  struct mxn__chunk *c = mxn__calloc(1, sizeof *c + cap);
  if (!c) return NULL;
  c->cap = cap;
  if (own && ds->st.arena) { /* behind the newest chunk */
    c->next = ds->st.arena->next;
    ds->st.arena->next = c;
  } else {
    c->next = ds->st.arena;
    ds->st.arena = c;
    ds->st.arena_used = bytes;
    ds->st.arena_cap = cap;
  }
  return c->data;
}

size_t mxn__arena_bytes(const mxn_dataset_t *ds) {
  size_t bytes = 0;
  for (const struct mxn__chunk *c = ds->st.arena; c; c = c->next) bytes += sizeof *c + c->cap;
  return bytes;
}

void mxn__arena_free(mxn_dataset_t *ds) {
  mxn__arena_state_t a = {ds->st.arena, 0, 0};
  mxn__arena_release(&a);
  ds->st.arena = NULL;
  ds->st.arena_used = ds->st.arena_cap = 0;
}

void mxn__arena_swap(mxn_dataset_t *ds, mxn__arena_state_t *other) {
  mxn__arena_state_t mine = {ds->st.arena, ds->st.arena_used, ds->st.arena_cap};
  ds->st.arena = other->arena;
  ds->st.arena_used = other->used;
  ds->st.arena_cap = other->cap;
  *other = mine;
}

void mxn__arena_reset(mxn__arena_state_t *a) {
  if (!a->arena) return;
  struct mxn__chunk *keep = a->arena, *rest = keep->next;
  keep->next = NULL;
  memset(keep->data, 0, a->used); /* handed out zeroed again */
  a->used = 0;
  mxn__arena_state_t others = {rest, 0, 0};
  mxn__arena_release(&others);
}

void mxn__arena_release(mxn__arena_state_t *a) {
  while (a->arena) {
    struct mxn__chunk *c = a->arena;
    a->arena = c->next;
    free(c);
  }
  a->used = a->cap = 0;
}
