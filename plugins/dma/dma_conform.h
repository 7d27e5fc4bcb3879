/* The recipes of trnsim-dma's opcodes (dma_conform.c). */
#ifndef TRNSIM_DMA_CONFORM_H
#define TRNSIM_DMA_CONFORM_H

extern const char dma_conform_abstractcopy[];
extern const char dma_conform_load[];
extern const char dma_conform_save[];
extern const char dma_conform_tensorcopy[];
extern const char dma_conform_genericcopy[];
extern const char dma_conform_dmacopy[];
extern const char dma_conform_trigger[];
extern const char dma_conform_descriptor[];
extern const char dma_conform_desc_copy[];
extern const char dma_conform_desc_cce[];
extern const char dma_conform_desc_transpose[];
extern const char dma_conform_desc_replicate[];
extern const char dma_conform_block[];
extern const char dma_conform_tensor_load[];
extern const char dma_conform_tensor_save[];

#endif
