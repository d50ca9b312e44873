/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pool.c - an ordered work ring: the caller fills slots in order, workers
 * process them in any order, the caller takes results back in the order it
 * filled them. The ring has a fixed number of slots, so memory stays bounded
 * whatever the image size; with no worker threads, hib_pool_submit() does
 * the work inline and the whole thing is a plain loop.
 */
#include "hibimgP.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

enum { SLOT_FREE, SLOT_FILLING, SLOT_READY, SLOT_BUSY, SLOT_DONE };

struct hib_pool {
	pthread_mutex_t lock;
	pthread_cond_t work_cv;         /* a slot became READY, or stop */
	pthread_cond_t done_cv;         /* a slot became DONE */
	pthread_t *threads;
	unsigned int nthreads, nslots;
	unsigned int head, tail, used;  /* ring: head = oldest, tail = next to fill */
	int *state;
	void **slots;
	hib_pool_fn fn;
	void *arg;
	int stop;
};

struct worker_start {
	struct hib_pool *p;
	unsigned int id;
};

static void *worker(void *v)
{
	struct worker_start *ws = v;
	struct hib_pool *p = ws->p;
	unsigned int id = ws->id;

	free(ws);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		unsigned int i, k, found = UINT32_MAX;

		/* oldest READY slot first: the caller waits for the head */
		for (k = 0, i = p->head; k < p->used; k++, i = (i + 1) % p->nslots)
			if (p->state[i] == SLOT_READY) {
				found = i;
				break;
			}
		if (found == UINT32_MAX) {
			if (p->stop)
				break;
			pthread_cond_wait(&p->work_cv, &p->lock);
			continue;
		}
		p->state[found] = SLOT_BUSY;
		pthread_mutex_unlock(&p->lock);
		p->fn(p->slots[found], id, p->arg);
		pthread_mutex_lock(&p->lock);
		p->state[found] = SLOT_DONE;
		pthread_cond_broadcast(&p->done_cv);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct hib_pool *hib_pool_new(unsigned int nthreads, unsigned int nslots,
			      void **slots, hib_pool_fn fn, void *arg)
{
	struct hib_pool *p = calloc(1, sizeof(*p));
	unsigned int i;

	if (!p)
		return NULL;
	p->nslots = nslots;
	p->slots = slots;
	p->fn = fn;
	p->arg = arg;
	p->state = calloc(nslots, sizeof(*p->state));
	p->threads = calloc(nthreads ? nthreads : 1, sizeof(*p->threads));
	if (!p->state || !p->threads) {
		free(p->state);
		free(p->threads);
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work_cv, NULL);
	pthread_cond_init(&p->done_cv, NULL);
	for (i = 0; i < nthreads; i++) {
		struct worker_start *ws = malloc(sizeof(*ws));

		if (!ws)
			break;
		ws->p = p;
		ws->id = i + 1;     /* 0 is the caller, for inline work */
		if (pthread_create(&p->threads[i], NULL, worker, ws)) {
			free(ws);
			break;
		}
		p->nthreads++;
	}
	return p;
}

void hib_pool_free(struct hib_pool *p)
{
	unsigned int i;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->work_cv);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->work_cv);
	pthread_cond_destroy(&p->done_cv);
	free(p->threads);
	free(p->state);
	free(p);
}

unsigned int hib_pool_pending(const struct hib_pool *p)
{
	return p->used;
}

unsigned int hib_pool_capacity(const struct hib_pool *p)
{
	return p->nslots;
}

/* The next slot to fill, or UINT32_MAX when the ring is full. */
unsigned int hib_pool_acquire(struct hib_pool *p)
{
	unsigned int i;

	pthread_mutex_lock(&p->lock);
	if (p->used == p->nslots) {
		pthread_mutex_unlock(&p->lock);
		return UINT32_MAX;
	}
	i = p->tail;
	p->state[i] = SLOT_FILLING;
	p->tail = (p->tail + 1) % p->nslots;
	p->used++;
	pthread_mutex_unlock(&p->lock);
	return i;
}

/* ready: 1 = let a worker process it; 0 = it is already a result (an error
 * found while filling), keep it in order. */
void hib_pool_submit(struct hib_pool *p, unsigned int i, int ready)
{
	if (ready && !p->nthreads) {
		p->fn(p->slots[i], 0, p->arg);
		ready = 0;
	}
	pthread_mutex_lock(&p->lock);
	p->state[i] = ready ? SLOT_READY : SLOT_DONE;
	if (ready)
		pthread_cond_signal(&p->work_cv);
	pthread_mutex_unlock(&p->lock);
}

/* Waits for the oldest slot's result; UINT32_MAX when nothing is pending. */
unsigned int hib_pool_wait(struct hib_pool *p)
{
	unsigned int i;

	pthread_mutex_lock(&p->lock);
	if (!p->used) {
		pthread_mutex_unlock(&p->lock);
		return UINT32_MAX;
	}
	i = p->head;
	while (p->state[i] != SLOT_DONE)
		pthread_cond_wait(&p->done_cv, &p->lock);
	pthread_mutex_unlock(&p->lock);
	return i;
}

/* Gives the oldest slot back once its result has been used. */
void hib_pool_release(struct hib_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->state[p->head] = SLOT_FREE;
	p->head = (p->head + 1) % p->nslots;
	p->used--;
	pthread_mutex_unlock(&p->lock);
}

unsigned int hib_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1;
}
