// libcudart.so.13's ABI types (cudart/cuda_abi.h, written without the CUDA
// toolkit) against CUDA 13's own headers: sizes, every field's offset, and
// the enum values the library uses. Skipped where the toolkit is absent.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

#ifdef RELGPU_HAVE_CUDA_HEADERS
#include <cuda_runtime_api.h>
namespace mine {
#include "cudart/cuda_abi.h"
}

TEST(CudartAbi, StructLayoutsMatchCuda13) {
  EXPECT_EQ(sizeof(mine::cudaDeviceProp), sizeof(::cudaDeviceProp)) << "cudaDeviceProp";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, name), offsetof(::cudaDeviceProp, name)) << "cudaDeviceProp.name";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, uuid), offsetof(::cudaDeviceProp, uuid)) << "cudaDeviceProp.uuid";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, luid), offsetof(::cudaDeviceProp, luid)) << "cudaDeviceProp.luid";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, luidDeviceNodeMask), offsetof(::cudaDeviceProp, luidDeviceNodeMask)) << "cudaDeviceProp.luidDeviceNodeMask";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, totalGlobalMem), offsetof(::cudaDeviceProp, totalGlobalMem)) << "cudaDeviceProp.totalGlobalMem";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, sharedMemPerBlock), offsetof(::cudaDeviceProp, sharedMemPerBlock)) << "cudaDeviceProp.sharedMemPerBlock";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, regsPerBlock), offsetof(::cudaDeviceProp, regsPerBlock)) << "cudaDeviceProp.regsPerBlock";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, warpSize), offsetof(::cudaDeviceProp, warpSize)) << "cudaDeviceProp.warpSize";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, memPitch), offsetof(::cudaDeviceProp, memPitch)) << "cudaDeviceProp.memPitch";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxThreadsPerBlock), offsetof(::cudaDeviceProp, maxThreadsPerBlock)) << "cudaDeviceProp.maxThreadsPerBlock";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxThreadsDim), offsetof(::cudaDeviceProp, maxThreadsDim)) << "cudaDeviceProp.maxThreadsDim";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxGridSize), offsetof(::cudaDeviceProp, maxGridSize)) << "cudaDeviceProp.maxGridSize";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, totalConstMem), offsetof(::cudaDeviceProp, totalConstMem)) << "cudaDeviceProp.totalConstMem";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, major), offsetof(::cudaDeviceProp, major)) << "cudaDeviceProp.major";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, minor), offsetof(::cudaDeviceProp, minor)) << "cudaDeviceProp.minor";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, textureAlignment), offsetof(::cudaDeviceProp, textureAlignment)) << "cudaDeviceProp.textureAlignment";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, texturePitchAlignment), offsetof(::cudaDeviceProp, texturePitchAlignment)) << "cudaDeviceProp.texturePitchAlignment";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, multiProcessorCount), offsetof(::cudaDeviceProp, multiProcessorCount)) << "cudaDeviceProp.multiProcessorCount";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, integrated), offsetof(::cudaDeviceProp, integrated)) << "cudaDeviceProp.integrated";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, canMapHostMemory), offsetof(::cudaDeviceProp, canMapHostMemory)) << "cudaDeviceProp.canMapHostMemory";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxTexture1D), offsetof(::cudaDeviceProp, maxTexture1D)) << "cudaDeviceProp.maxTexture1D";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxTexture1DMipmap), offsetof(::cudaDeviceProp, maxTexture1DMipmap)) << "cudaDeviceProp.maxTexture1DMipmap";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxTexture2D), offsetof(::cudaDeviceProp, maxTexture2D)) << "cudaDeviceProp.maxTexture2D";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxTexture2DMipmap), offsetof(::cudaDeviceProp, maxTexture2DMipmap)) << "cudaDeviceProp.maxTexture2DMipmap";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxTexture2DLinear), offsetof(::cudaDeviceProp, maxTexture2DLinear)) << "cudaDeviceProp.maxTexture2DLinear";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxTexture2DGather), offsetof(::cudaDeviceProp, maxTexture2DGather)) << "cudaDeviceProp.maxTexture2DGather";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxTexture3D), offsetof(::cudaDeviceProp, maxTexture3D)) << "cudaDeviceProp.maxTexture3D";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxTexture3DAlt), offsetof(::cudaDeviceProp, maxTexture3DAlt)) << "cudaDeviceProp.maxTexture3DAlt";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxTextureCubemap), offsetof(::cudaDeviceProp, maxTextureCubemap)) << "cudaDeviceProp.maxTextureCubemap";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxTexture1DLayered), offsetof(::cudaDeviceProp, maxTexture1DLayered)) << "cudaDeviceProp.maxTexture1DLayered";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxTexture2DLayered), offsetof(::cudaDeviceProp, maxTexture2DLayered)) << "cudaDeviceProp.maxTexture2DLayered";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxTextureCubemapLayered), offsetof(::cudaDeviceProp, maxTextureCubemapLayered)) << "cudaDeviceProp.maxTextureCubemapLayered";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxSurface1D), offsetof(::cudaDeviceProp, maxSurface1D)) << "cudaDeviceProp.maxSurface1D";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxSurface2D), offsetof(::cudaDeviceProp, maxSurface2D)) << "cudaDeviceProp.maxSurface2D";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxSurface3D), offsetof(::cudaDeviceProp, maxSurface3D)) << "cudaDeviceProp.maxSurface3D";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxSurface1DLayered), offsetof(::cudaDeviceProp, maxSurface1DLayered)) << "cudaDeviceProp.maxSurface1DLayered";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxSurface2DLayered), offsetof(::cudaDeviceProp, maxSurface2DLayered)) << "cudaDeviceProp.maxSurface2DLayered";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxSurfaceCubemap), offsetof(::cudaDeviceProp, maxSurfaceCubemap)) << "cudaDeviceProp.maxSurfaceCubemap";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxSurfaceCubemapLayered), offsetof(::cudaDeviceProp, maxSurfaceCubemapLayered)) << "cudaDeviceProp.maxSurfaceCubemapLayered";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, surfaceAlignment), offsetof(::cudaDeviceProp, surfaceAlignment)) << "cudaDeviceProp.surfaceAlignment";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, concurrentKernels), offsetof(::cudaDeviceProp, concurrentKernels)) << "cudaDeviceProp.concurrentKernels";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, ECCEnabled), offsetof(::cudaDeviceProp, ECCEnabled)) << "cudaDeviceProp.ECCEnabled";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, pciBusID), offsetof(::cudaDeviceProp, pciBusID)) << "cudaDeviceProp.pciBusID";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, pciDeviceID), offsetof(::cudaDeviceProp, pciDeviceID)) << "cudaDeviceProp.pciDeviceID";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, pciDomainID), offsetof(::cudaDeviceProp, pciDomainID)) << "cudaDeviceProp.pciDomainID";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, tccDriver), offsetof(::cudaDeviceProp, tccDriver)) << "cudaDeviceProp.tccDriver";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, asyncEngineCount), offsetof(::cudaDeviceProp, asyncEngineCount)) << "cudaDeviceProp.asyncEngineCount";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, unifiedAddressing), offsetof(::cudaDeviceProp, unifiedAddressing)) << "cudaDeviceProp.unifiedAddressing";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, memoryBusWidth), offsetof(::cudaDeviceProp, memoryBusWidth)) << "cudaDeviceProp.memoryBusWidth";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, l2CacheSize), offsetof(::cudaDeviceProp, l2CacheSize)) << "cudaDeviceProp.l2CacheSize";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, persistingL2CacheMaxSize), offsetof(::cudaDeviceProp, persistingL2CacheMaxSize)) << "cudaDeviceProp.persistingL2CacheMaxSize";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxThreadsPerMultiProcessor), offsetof(::cudaDeviceProp, maxThreadsPerMultiProcessor)) << "cudaDeviceProp.maxThreadsPerMultiProcessor";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, streamPrioritiesSupported), offsetof(::cudaDeviceProp, streamPrioritiesSupported)) << "cudaDeviceProp.streamPrioritiesSupported";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, globalL1CacheSupported), offsetof(::cudaDeviceProp, globalL1CacheSupported)) << "cudaDeviceProp.globalL1CacheSupported";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, localL1CacheSupported), offsetof(::cudaDeviceProp, localL1CacheSupported)) << "cudaDeviceProp.localL1CacheSupported";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, sharedMemPerMultiprocessor), offsetof(::cudaDeviceProp, sharedMemPerMultiprocessor)) << "cudaDeviceProp.sharedMemPerMultiprocessor";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, regsPerMultiprocessor), offsetof(::cudaDeviceProp, regsPerMultiprocessor)) << "cudaDeviceProp.regsPerMultiprocessor";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, managedMemory), offsetof(::cudaDeviceProp, managedMemory)) << "cudaDeviceProp.managedMemory";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, isMultiGpuBoard), offsetof(::cudaDeviceProp, isMultiGpuBoard)) << "cudaDeviceProp.isMultiGpuBoard";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, multiGpuBoardGroupID), offsetof(::cudaDeviceProp, multiGpuBoardGroupID)) << "cudaDeviceProp.multiGpuBoardGroupID";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, hostNativeAtomicSupported), offsetof(::cudaDeviceProp, hostNativeAtomicSupported)) << "cudaDeviceProp.hostNativeAtomicSupported";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, pageableMemoryAccess), offsetof(::cudaDeviceProp, pageableMemoryAccess)) << "cudaDeviceProp.pageableMemoryAccess";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, concurrentManagedAccess), offsetof(::cudaDeviceProp, concurrentManagedAccess)) << "cudaDeviceProp.concurrentManagedAccess";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, computePreemptionSupported), offsetof(::cudaDeviceProp, computePreemptionSupported)) << "cudaDeviceProp.computePreemptionSupported";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, canUseHostPointerForRegisteredMem), offsetof(::cudaDeviceProp, canUseHostPointerForRegisteredMem)) << "cudaDeviceProp.canUseHostPointerForRegisteredMem";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, cooperativeLaunch), offsetof(::cudaDeviceProp, cooperativeLaunch)) << "cudaDeviceProp.cooperativeLaunch";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, sharedMemPerBlockOptin), offsetof(::cudaDeviceProp, sharedMemPerBlockOptin)) << "cudaDeviceProp.sharedMemPerBlockOptin";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, pageableMemoryAccessUsesHostPageTables), offsetof(::cudaDeviceProp, pageableMemoryAccessUsesHostPageTables)) << "cudaDeviceProp.pageableMemoryAccessUsesHostPageTables";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, directManagedMemAccessFromHost), offsetof(::cudaDeviceProp, directManagedMemAccessFromHost)) << "cudaDeviceProp.directManagedMemAccessFromHost";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, maxBlocksPerMultiProcessor), offsetof(::cudaDeviceProp, maxBlocksPerMultiProcessor)) << "cudaDeviceProp.maxBlocksPerMultiProcessor";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, accessPolicyMaxWindowSize), offsetof(::cudaDeviceProp, accessPolicyMaxWindowSize)) << "cudaDeviceProp.accessPolicyMaxWindowSize";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, reservedSharedMemPerBlock), offsetof(::cudaDeviceProp, reservedSharedMemPerBlock)) << "cudaDeviceProp.reservedSharedMemPerBlock";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, hostRegisterSupported), offsetof(::cudaDeviceProp, hostRegisterSupported)) << "cudaDeviceProp.hostRegisterSupported";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, sparseCudaArraySupported), offsetof(::cudaDeviceProp, sparseCudaArraySupported)) << "cudaDeviceProp.sparseCudaArraySupported";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, hostRegisterReadOnlySupported), offsetof(::cudaDeviceProp, hostRegisterReadOnlySupported)) << "cudaDeviceProp.hostRegisterReadOnlySupported";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, timelineSemaphoreInteropSupported), offsetof(::cudaDeviceProp, timelineSemaphoreInteropSupported)) << "cudaDeviceProp.timelineSemaphoreInteropSupported";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, memoryPoolsSupported), offsetof(::cudaDeviceProp, memoryPoolsSupported)) << "cudaDeviceProp.memoryPoolsSupported";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, gpuDirectRDMASupported), offsetof(::cudaDeviceProp, gpuDirectRDMASupported)) << "cudaDeviceProp.gpuDirectRDMASupported";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, gpuDirectRDMAFlushWritesOptions), offsetof(::cudaDeviceProp, gpuDirectRDMAFlushWritesOptions)) << "cudaDeviceProp.gpuDirectRDMAFlushWritesOptions";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, gpuDirectRDMAWritesOrdering), offsetof(::cudaDeviceProp, gpuDirectRDMAWritesOrdering)) << "cudaDeviceProp.gpuDirectRDMAWritesOrdering";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, memoryPoolSupportedHandleTypes), offsetof(::cudaDeviceProp, memoryPoolSupportedHandleTypes)) << "cudaDeviceProp.memoryPoolSupportedHandleTypes";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, deferredMappingCudaArraySupported), offsetof(::cudaDeviceProp, deferredMappingCudaArraySupported)) << "cudaDeviceProp.deferredMappingCudaArraySupported";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, ipcEventSupported), offsetof(::cudaDeviceProp, ipcEventSupported)) << "cudaDeviceProp.ipcEventSupported";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, clusterLaunch), offsetof(::cudaDeviceProp, clusterLaunch)) << "cudaDeviceProp.clusterLaunch";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, unifiedFunctionPointers), offsetof(::cudaDeviceProp, unifiedFunctionPointers)) << "cudaDeviceProp.unifiedFunctionPointers";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, deviceNumaConfig), offsetof(::cudaDeviceProp, deviceNumaConfig)) << "cudaDeviceProp.deviceNumaConfig";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, deviceNumaId), offsetof(::cudaDeviceProp, deviceNumaId)) << "cudaDeviceProp.deviceNumaId";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, mpsEnabled), offsetof(::cudaDeviceProp, mpsEnabled)) << "cudaDeviceProp.mpsEnabled";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, hostNumaId), offsetof(::cudaDeviceProp, hostNumaId)) << "cudaDeviceProp.hostNumaId";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, gpuPciDeviceID), offsetof(::cudaDeviceProp, gpuPciDeviceID)) << "cudaDeviceProp.gpuPciDeviceID";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, gpuPciSubsystemID), offsetof(::cudaDeviceProp, gpuPciSubsystemID)) << "cudaDeviceProp.gpuPciSubsystemID";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, hostNumaMultinodeIpcSupported), offsetof(::cudaDeviceProp, hostNumaMultinodeIpcSupported)) << "cudaDeviceProp.hostNumaMultinodeIpcSupported";
  EXPECT_EQ(offsetof(mine::cudaDeviceProp, reserved), offsetof(::cudaDeviceProp, reserved)) << "cudaDeviceProp.reserved";
  EXPECT_EQ(sizeof(mine::cudaFuncAttributes), sizeof(::cudaFuncAttributes)) << "cudaFuncAttributes";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, sharedSizeBytes), offsetof(::cudaFuncAttributes, sharedSizeBytes)) << "cudaFuncAttributes.sharedSizeBytes";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, constSizeBytes), offsetof(::cudaFuncAttributes, constSizeBytes)) << "cudaFuncAttributes.constSizeBytes";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, localSizeBytes), offsetof(::cudaFuncAttributes, localSizeBytes)) << "cudaFuncAttributes.localSizeBytes";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, maxThreadsPerBlock), offsetof(::cudaFuncAttributes, maxThreadsPerBlock)) << "cudaFuncAttributes.maxThreadsPerBlock";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, numRegs), offsetof(::cudaFuncAttributes, numRegs)) << "cudaFuncAttributes.numRegs";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, ptxVersion), offsetof(::cudaFuncAttributes, ptxVersion)) << "cudaFuncAttributes.ptxVersion";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, binaryVersion), offsetof(::cudaFuncAttributes, binaryVersion)) << "cudaFuncAttributes.binaryVersion";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, cacheModeCA), offsetof(::cudaFuncAttributes, cacheModeCA)) << "cudaFuncAttributes.cacheModeCA";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, maxDynamicSharedSizeBytes), offsetof(::cudaFuncAttributes, maxDynamicSharedSizeBytes)) << "cudaFuncAttributes.maxDynamicSharedSizeBytes";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, preferredShmemCarveout), offsetof(::cudaFuncAttributes, preferredShmemCarveout)) << "cudaFuncAttributes.preferredShmemCarveout";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, clusterDimMustBeSet), offsetof(::cudaFuncAttributes, clusterDimMustBeSet)) << "cudaFuncAttributes.clusterDimMustBeSet";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, requiredClusterWidth), offsetof(::cudaFuncAttributes, requiredClusterWidth)) << "cudaFuncAttributes.requiredClusterWidth";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, requiredClusterHeight), offsetof(::cudaFuncAttributes, requiredClusterHeight)) << "cudaFuncAttributes.requiredClusterHeight";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, requiredClusterDepth), offsetof(::cudaFuncAttributes, requiredClusterDepth)) << "cudaFuncAttributes.requiredClusterDepth";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, clusterSchedulingPolicyPreference), offsetof(::cudaFuncAttributes, clusterSchedulingPolicyPreference)) << "cudaFuncAttributes.clusterSchedulingPolicyPreference";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, nonPortableClusterSizeAllowed), offsetof(::cudaFuncAttributes, nonPortableClusterSizeAllowed)) << "cudaFuncAttributes.nonPortableClusterSizeAllowed";
  EXPECT_EQ(offsetof(mine::cudaFuncAttributes, reserved), offsetof(::cudaFuncAttributes, reserved)) << "cudaFuncAttributes.reserved";
  EXPECT_EQ(sizeof(mine::cudaPointerAttributes), sizeof(::cudaPointerAttributes)) << "cudaPointerAttributes";
  EXPECT_EQ(offsetof(mine::cudaPointerAttributes, type), offsetof(::cudaPointerAttributes, type)) << "cudaPointerAttributes.type";
  EXPECT_EQ(offsetof(mine::cudaPointerAttributes, device), offsetof(::cudaPointerAttributes, device)) << "cudaPointerAttributes.device";
  EXPECT_EQ(offsetof(mine::cudaPointerAttributes, devicePointer), offsetof(::cudaPointerAttributes, devicePointer)) << "cudaPointerAttributes.devicePointer";
  EXPECT_EQ(offsetof(mine::cudaPointerAttributes, hostPointer), offsetof(::cudaPointerAttributes, hostPointer)) << "cudaPointerAttributes.hostPointer";
  EXPECT_EQ(offsetof(mine::cudaPointerAttributes, reserved), offsetof(::cudaPointerAttributes, reserved)) << "cudaPointerAttributes.reserved";
  EXPECT_EQ(sizeof(mine::cudaChannelFormatDesc), sizeof(::cudaChannelFormatDesc)) << "cudaChannelFormatDesc";
  EXPECT_EQ(offsetof(mine::cudaChannelFormatDesc, x), offsetof(::cudaChannelFormatDesc, x)) << "cudaChannelFormatDesc.x";
  EXPECT_EQ(offsetof(mine::cudaChannelFormatDesc, y), offsetof(::cudaChannelFormatDesc, y)) << "cudaChannelFormatDesc.y";
  EXPECT_EQ(offsetof(mine::cudaChannelFormatDesc, z), offsetof(::cudaChannelFormatDesc, z)) << "cudaChannelFormatDesc.z";
  EXPECT_EQ(offsetof(mine::cudaChannelFormatDesc, w), offsetof(::cudaChannelFormatDesc, w)) << "cudaChannelFormatDesc.w";
  EXPECT_EQ(offsetof(mine::cudaChannelFormatDesc, f), offsetof(::cudaChannelFormatDesc, f)) << "cudaChannelFormatDesc.f";
  EXPECT_EQ(sizeof(mine::cudaPitchedPtr), sizeof(::cudaPitchedPtr)) << "cudaPitchedPtr";
  EXPECT_EQ(offsetof(mine::cudaPitchedPtr, ptr), offsetof(::cudaPitchedPtr, ptr)) << "cudaPitchedPtr.ptr";
  EXPECT_EQ(offsetof(mine::cudaPitchedPtr, pitch), offsetof(::cudaPitchedPtr, pitch)) << "cudaPitchedPtr.pitch";
  EXPECT_EQ(offsetof(mine::cudaPitchedPtr, xsize), offsetof(::cudaPitchedPtr, xsize)) << "cudaPitchedPtr.xsize";
  EXPECT_EQ(offsetof(mine::cudaPitchedPtr, ysize), offsetof(::cudaPitchedPtr, ysize)) << "cudaPitchedPtr.ysize";
  EXPECT_EQ(sizeof(mine::cudaExtent), sizeof(::cudaExtent)) << "cudaExtent";
  EXPECT_EQ(offsetof(mine::cudaExtent, width), offsetof(::cudaExtent, width)) << "cudaExtent.width";
  EXPECT_EQ(offsetof(mine::cudaExtent, height), offsetof(::cudaExtent, height)) << "cudaExtent.height";
  EXPECT_EQ(offsetof(mine::cudaExtent, depth), offsetof(::cudaExtent, depth)) << "cudaExtent.depth";
  EXPECT_EQ(sizeof(mine::dim3), sizeof(::dim3)) << "dim3";
  EXPECT_EQ(offsetof(mine::dim3, x), offsetof(::dim3, x)) << "dim3.x";
  EXPECT_EQ(offsetof(mine::dim3, y), offsetof(::dim3, y)) << "dim3.y";
  EXPECT_EQ(offsetof(mine::dim3, z), offsetof(::dim3, z)) << "dim3.z";
  EXPECT_EQ(sizeof(mine::cudaLaunchConfig_t), sizeof(::cudaLaunchConfig_t)) << "cudaLaunchConfig_t";
  EXPECT_EQ(offsetof(mine::cudaLaunchConfig_t, gridDim), offsetof(::cudaLaunchConfig_t, gridDim)) << "cudaLaunchConfig_t.gridDim";
  EXPECT_EQ(offsetof(mine::cudaLaunchConfig_t, blockDim), offsetof(::cudaLaunchConfig_t, blockDim)) << "cudaLaunchConfig_t.blockDim";
  EXPECT_EQ(offsetof(mine::cudaLaunchConfig_t, dynamicSmemBytes), offsetof(::cudaLaunchConfig_t, dynamicSmemBytes)) << "cudaLaunchConfig_t.dynamicSmemBytes";
  EXPECT_EQ(offsetof(mine::cudaLaunchConfig_t, stream), offsetof(::cudaLaunchConfig_t, stream)) << "cudaLaunchConfig_t.stream";
  EXPECT_EQ(offsetof(mine::cudaLaunchConfig_t, attrs), offsetof(::cudaLaunchConfig_t, attrs)) << "cudaLaunchConfig_t.attrs";
  EXPECT_EQ(offsetof(mine::cudaLaunchConfig_t, numAttrs), offsetof(::cudaLaunchConfig_t, numAttrs)) << "cudaLaunchConfig_t.numAttrs";
  EXPECT_EQ(sizeof(mine::cudaLaunchAttribute), sizeof(::cudaLaunchAttribute)) << "cudaLaunchAttribute";
  EXPECT_EQ(sizeof(mine::cudaPitchedPtr), sizeof(::cudaPitchedPtr)) << "cudaPitchedPtr";
  EXPECT_EQ(offsetof(mine::cudaPitchedPtr, ptr), offsetof(::cudaPitchedPtr, ptr)) << "cudaPitchedPtr.ptr";
  EXPECT_EQ(offsetof(mine::cudaPitchedPtr, pitch), offsetof(::cudaPitchedPtr, pitch)) << "cudaPitchedPtr.pitch";
  EXPECT_EQ(offsetof(mine::cudaPitchedPtr, xsize), offsetof(::cudaPitchedPtr, xsize)) << "cudaPitchedPtr.xsize";
  EXPECT_EQ(offsetof(mine::cudaPitchedPtr, ysize), offsetof(::cudaPitchedPtr, ysize)) << "cudaPitchedPtr.ysize";
  EXPECT_EQ(sizeof(mine::cudaExtent), sizeof(::cudaExtent)) << "cudaExtent";
  EXPECT_EQ(offsetof(mine::cudaExtent, width), offsetof(::cudaExtent, width)) << "cudaExtent.width";
  EXPECT_EQ(offsetof(mine::cudaExtent, height), offsetof(::cudaExtent, height)) << "cudaExtent.height";
  EXPECT_EQ(offsetof(mine::cudaExtent, depth), offsetof(::cudaExtent, depth)) << "cudaExtent.depth";
  EXPECT_EQ(sizeof(mine::cudaPos), sizeof(::cudaPos)) << "cudaPos";
  EXPECT_EQ(offsetof(mine::cudaPos, x), offsetof(::cudaPos, x)) << "cudaPos.x";
  EXPECT_EQ(offsetof(mine::cudaPos, y), offsetof(::cudaPos, y)) << "cudaPos.y";
  EXPECT_EQ(offsetof(mine::cudaPos, z), offsetof(::cudaPos, z)) << "cudaPos.z";
  EXPECT_EQ(sizeof(mine::cudaMemcpy3DParms), sizeof(::cudaMemcpy3DParms)) << "cudaMemcpy3DParms";
  EXPECT_EQ(offsetof(mine::cudaMemcpy3DParms, srcArray), offsetof(::cudaMemcpy3DParms, srcArray)) << "cudaMemcpy3DParms.srcArray";
  EXPECT_EQ(offsetof(mine::cudaMemcpy3DParms, srcPos), offsetof(::cudaMemcpy3DParms, srcPos)) << "cudaMemcpy3DParms.srcPos";
  EXPECT_EQ(offsetof(mine::cudaMemcpy3DParms, srcPtr), offsetof(::cudaMemcpy3DParms, srcPtr)) << "cudaMemcpy3DParms.srcPtr";
  EXPECT_EQ(offsetof(mine::cudaMemcpy3DParms, dstArray), offsetof(::cudaMemcpy3DParms, dstArray)) << "cudaMemcpy3DParms.dstArray";
  EXPECT_EQ(offsetof(mine::cudaMemcpy3DParms, dstPos), offsetof(::cudaMemcpy3DParms, dstPos)) << "cudaMemcpy3DParms.dstPos";
  EXPECT_EQ(offsetof(mine::cudaMemcpy3DParms, dstPtr), offsetof(::cudaMemcpy3DParms, dstPtr)) << "cudaMemcpy3DParms.dstPtr";
  EXPECT_EQ(offsetof(mine::cudaMemcpy3DParms, extent), offsetof(::cudaMemcpy3DParms, extent)) << "cudaMemcpy3DParms.extent";
  EXPECT_EQ(offsetof(mine::cudaMemcpy3DParms, kind), offsetof(::cudaMemcpy3DParms, kind)) << "cudaMemcpy3DParms.kind";
  EXPECT_EQ(offsetof(mine::cudaLaunchAttribute, val), offsetof(::cudaLaunchAttribute, val)) << "cudaLaunchAttribute.val";
}

TEST(CudartAbi, EnumValuesMatchCuda13) {
#define SAME(x) EXPECT_EQ(int(mine::x), int(::x)) << #x
  SAME(cudaSuccess); SAME(cudaErrorInvalidValue); SAME(cudaErrorMemoryAllocation);
  SAME(cudaErrorInitializationError); SAME(cudaErrorInvalidConfiguration); SAME(cudaErrorInvalidSymbol);
  SAME(cudaErrorInvalidMemcpyDirection); SAME(cudaErrorMissingConfiguration); SAME(cudaErrorInvalidDeviceFunction);
  SAME(cudaErrorInvalidDevice); SAME(cudaErrorInvalidKernelImage); SAME(cudaErrorNoKernelImageForDevice);
  SAME(cudaErrorUnsupportedLimit); SAME(cudaErrorInvalidPtx); SAME(cudaErrorInvalidResourceHandle);
  SAME(cudaErrorNotReady); SAME(cudaErrorIllegalAddress); SAME(cudaErrorLaunchTimeout);
  SAME(cudaErrorIllegalInstruction); SAME(cudaErrorMisalignedAddress); SAME(cudaErrorLaunchFailure);
  SAME(cudaErrorNotSupported); SAME(cudaErrorUnknown); SAME(cudaErrorCooperativeLaunchTooLarge);
  SAME(cudaLaunchAttributeCooperative);
  SAME(cudaMemcpyHostToHost); SAME(cudaMemcpyHostToDevice); SAME(cudaMemcpyDeviceToHost);
  SAME(cudaMemcpyDeviceToDevice); SAME(cudaMemcpyDefault);
  SAME(cudaDevAttrMaxThreadsPerBlock); SAME(cudaDevAttrClockRate); SAME(cudaDevAttrMultiProcessorCount);
  SAME(cudaDevAttrMemoryClockRate); SAME(cudaDevAttrL2CacheSize); SAME(cudaDevAttrComputeCapabilityMajor);
  SAME(cudaDevAttrComputeCapabilityMinor); SAME(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  SAME(cudaDevAttrMaxBlocksPerMultiprocessor); SAME(cudaDevAttrCooperativeLaunch);
  SAME(cudaFuncAttributeMaxDynamicSharedMemorySize); SAME(cudaLimitStackSize); SAME(cudaLimitMallocHeapSize);
  SAME(cudaMemoryTypeDevice);
  EXPECT_EQ(RELGPU_EVENT_DISABLE_TIMING, unsigned(cudaEventDisableTiming));
#undef SAME
  EXPECT_EQ((void*)RELGPU_STREAM_LEGACY, (void*)cudaStreamLegacy);
  EXPECT_EQ((void*)RELGPU_STREAM_PER_THREAD, (void*)cudaStreamPerThread);
}
#else
TEST(CudartAbi, StructLayoutsMatchCuda13) {
  GTEST_SKIP() << "the CUDA 13 headers (cuda_runtime_api.h) were not found when CMake ran; nothing to compare with";
}
#endif
