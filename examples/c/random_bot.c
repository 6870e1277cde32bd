/*
 * A complete bones bot in C on msgpack-c: the bones-bot protocol 1 (docs/protocol.md).
 *
 *     ./random_bot [SEED]
 *
 * It plays a random legal move (by index) from its own seeded generator: the seed is the
 * first argument if given, else the "seed" of each game_start.  Frames are a 4-byte
 * big-endian length and one msgpack map, on stdin (from the runner) and stdout (to the
 * runner).  It answers hello, ping and move_request, ignores every other message type
 * and every field it does not know, and exits at quit or at the end of its input.  Logs
 * go to stderr only.  Build: see README.md (make, or cc ... -lmsgpackc).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <msgpack.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FRAME (1u << 20) /* the runner's messages are a few KiB at most */

/* ---- a small seeded generator (splitmix64) ---------------------------------------- */

static uint64_t rng_state;

static uint64_t rng_next(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---- frames ------------------------------------------------------------------------ */

/* Input is read in large chunks into one buffer, so a batch of frames (the events
 * before a move request) costs one read(), not two per frame. */
#define IN_CAP (MAX_FRAME + 4 + 65536)
static unsigned char *in_buf;
static size_t in_start, in_end; /* the unread bytes are in_buf[in_start, in_end) */

/* 1: n bytes are buffered at in_buf + in_start; 0: end of input before any byte of
 * them; -1: error, or the input ended inside them. */
static int buffer_bytes(size_t n) {
    if (in_end - in_start >= n) return 1;
    if (in_start == in_end) in_start = in_end = 0; /* all read: refill from the front */
    if (in_start + n > IN_CAP) { /* no room after them: move the unread bytes to the front */
        memmove(in_buf, in_buf + in_start, in_end - in_start);
        in_end -= in_start;
        in_start = 0;
    }
    while (in_end - in_start < n) {
        ssize_t r = read(STDIN_FILENO, in_buf + in_end, IN_CAP - in_end);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) return in_end == in_start ? 0 : -1;
        in_end += (size_t)r;
    }
    return 1;
}

static int write_all(int fd, const char *buf, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return -1;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Send sbuf as one frame in one write: its first 4 bytes were reserved for the length
 * (a frame written in two pieces would wake the runner twice). */
static int send_frame(msgpack_sbuffer *sbuf) {
    uint32_t n = (uint32_t)sbuf->size - 4;
    unsigned char *head = (unsigned char *)sbuf->data;
    head[0] = (unsigned char)(n >> 24);
    head[1] = (unsigned char)(n >> 16);
    head[2] = (unsigned char)(n >> 8);
    head[3] = (unsigned char)n;
    return write_all(STDOUT_FILENO, sbuf->data, sbuf->size);
}

/* ---- reading a message -------------------------------------------------------------- */

static int text_is(const msgpack_object *key, const char *name) {
    size_t n = strlen(name);
    return key->type == MSGPACK_OBJECT_STR && key->via.str.size == n &&
           memcmp(key->via.str.ptr, name, n) == 0;
}

/* The value of `name` in the map, or NULL. */
static const msgpack_object *get(const msgpack_object *map, const char *name) {
    if (map->type != MSGPACK_OBJECT_MAP) return NULL;
    for (uint32_t i = 0; i < map->via.map.size; i++)
        if (text_is(&map->via.map.ptr[i].key, name)) return &map->via.map.ptr[i].val;
    return NULL;
}

static void pack_text(msgpack_packer *pk, const char *text) {
    size_t n = strlen(text);
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, text, n);
}

/* ---- the bot ------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    int fixed = argc > 1;
    rng_state = fixed ? strtoull(argv[1], NULL, 10) : 0;
    msgpack_sbuffer sbuf;
    msgpack_packer pk;
    msgpack_unpacked msg;
    in_buf = malloc(IN_CAP);
    if (in_buf == NULL) return 1;
    msgpack_sbuffer_init(&sbuf);
    msgpack_packer_init(&pk, &sbuf, msgpack_sbuffer_write);
    msgpack_unpacked_init(&msg);

    for (;;) {
        int r = buffer_bytes(4);
        if (r == 0) break; /* the runner closed our input: done */
        if (r < 0) return 1;
        const unsigned char *head = in_buf + in_start;
        uint32_t n = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 |
                     (uint32_t)head[2] << 8 | (uint32_t)head[3];
        if (n == 0 || n > MAX_FRAME) {
            fprintf(stderr, "random_bot: bad frame length %" PRIu32 "\n", n);
            return 1;
        }
        if (buffer_bytes(4 + (size_t)n) != 1) return 1;
        const char *body = (const char *)in_buf + in_start + 4;
        in_start += 4 + (size_t)n; /* msg points into the buffer until the next read */
        size_t off = 0;
        if (msgpack_unpack_next(&msg, body, n, &off) != MSGPACK_UNPACK_SUCCESS) {
            fprintf(stderr, "random_bot: a frame that is not msgpack\n");
            return 1;
        }
        const msgpack_object *type = get(&msg.data, "type");
        if (type == NULL) continue;
        msgpack_sbuffer_clear(&sbuf);
        msgpack_sbuffer_write(&sbuf, "\0\0\0\0", 4); /* the length, set by send_frame */

        if (text_is(type, "quit")) {
            break;
        } else if (text_is(type, "hello")) {
            msgpack_pack_map(&pk, 7);
            pack_text(&pk, "type");
            pack_text(&pk, "hello");
            pack_text(&pk, "protocol");
            msgpack_pack_int(&pk, 1);
            pack_text(&pk, "name");
            pack_text(&pk, "example-random-c");
            pack_text(&pk, "author");
            pack_text(&pk, "the bones examples");
            pack_text(&pk, "version");
            pack_text(&pk, "1.0");
            pack_text(&pk, "variants");
            msgpack_pack_nil(&pk); /* every variant */
            pack_text(&pk, "options");
            msgpack_pack_map(&pk, 0);
        } else if (text_is(type, "ping")) {
            const msgpack_object *id = get(&msg.data, "id");
            msgpack_pack_map(&pk, 2);
            pack_text(&pk, "type");
            pack_text(&pk, "pong");
            pack_text(&pk, "id");
            if (id != NULL)
                msgpack_pack_object(&pk, *id); /* echo the id as it came */
            else
                msgpack_pack_nil(&pk);
        } else if (text_is(type, "game_start")) {
            const msgpack_object *seed = get(&msg.data, "seed");
            if (!fixed && seed != NULL && seed->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
                rng_state = seed->via.u64;
            continue;
        } else if (text_is(type, "move_request")) {
            const msgpack_object *id = get(&msg.data, "id");
            const msgpack_object *legal = get(&msg.data, "legal");
            if (id == NULL || legal == NULL || legal->type != MSGPACK_OBJECT_ARRAY ||
                legal->via.array.size == 0) {
                fprintf(stderr, "random_bot: a move_request without id or legal moves\n");
                return 1;
            }
            uint64_t index = rng_next() % legal->via.array.size;
            msgpack_pack_map(&pk, 3);
            pack_text(&pk, "type");
            pack_text(&pk, "move");
            pack_text(&pk, "id");
            msgpack_pack_object(&pk, *id);
            pack_text(&pk, "index");
            msgpack_pack_uint64(&pk, index);
        } else {
            continue; /* round_start, event, round_end, game_end, unknown types */
        }
        if (send_frame(&sbuf) < 0) return 1;
    }
    msgpack_unpacked_destroy(&msg);
    msgpack_sbuffer_destroy(&sbuf);
    free(in_buf);
    return 0;
}
