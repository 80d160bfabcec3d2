/**
 * Generations and their read models (docs/design.md steps 5, 7 and 8): a generation is one isolated copy of accepted
 * state and of its public view, with its own cursor; exactly one serves per stream, and the serving pointer moves with
 * the live cursor in one transaction at cutover. {@code ProjectionWriter} applies events to one generation in
 * batches; {@code GenerationRepository} owns the cursors and the locks the live applier and a rebuild take.
 */
package com.acme.catalog.product.projection;
