// libheif and libde265, opened at first use (tc_library.h says why): the functions the glue calls, through pointers
// of their own types. A call the lists miss fails to link (the libraries are not on the link line).
#ifndef THUMBCACHE_HEIF_LIBRARY_H
#define THUMBCACHE_HEIF_LIBRARY_H

#include <libde265/de265.h>
#include <libheif/heif.h>

#define TC_HEIF_FUNCTIONS(X) \
    X(heif_context_add_XMP_metadata) \
    X(heif_context_add_exif_metadata) \
    X(heif_context_alloc) \
    X(heif_context_encode_image) \
    X(heif_context_free) \
    X(heif_context_get_encoder_for_format) \
    X(heif_context_get_primary_image_handle) \
    X(heif_context_read_from_memory_without_copy) \
    X(heif_context_read_from_reader) \
    X(heif_context_set_max_decoding_threads) \
    X(heif_context_set_maximum_image_size_limit) \
    X(heif_context_write) \
    X(heif_decode_image) \
    X(heif_decoding_options_alloc) \
    X(heif_decoding_options_free) \
    X(heif_encoder_release) \
    X(heif_encoder_set_logging_level) \
    X(heif_encoder_set_lossless) \
    X(heif_encoder_set_lossy_quality) \
    X(heif_encoder_set_parameter_string) \
    X(heif_encoding_options_alloc) \
    X(heif_encoding_options_free) \
    X(heif_have_encoder_for_format) \
    X(heif_image_add_plane) \
    X(heif_image_create) \
    X(heif_image_get_bits_per_pixel_range) \
    X(heif_image_get_height) \
    X(heif_image_get_plane) \
    X(heif_image_get_plane_readonly) \
    X(heif_image_get_width) \
    X(heif_image_handle_get_color_profile_type) \
    X(heif_image_handle_get_height) \
    X(heif_image_handle_get_list_of_metadata_block_IDs) \
    X(heif_image_handle_get_list_of_thumbnail_IDs) \
    X(heif_image_handle_get_luma_bits_per_pixel) \
    X(heif_image_handle_get_metadata) \
    X(heif_image_handle_get_metadata_content_type) \
    X(heif_image_handle_get_metadata_size) \
    X(heif_image_handle_get_metadata_type) \
    X(heif_image_handle_get_nclx_color_profile) \
    X(heif_image_handle_get_number_of_metadata_blocks) \
    X(heif_image_handle_get_number_of_thumbnails) \
    X(heif_image_handle_get_raw_color_profile) \
    X(heif_image_handle_get_raw_color_profile_size) \
    X(heif_image_handle_get_thumbnail) \
    X(heif_image_handle_get_width) \
    X(heif_image_handle_has_alpha_channel) \
    X(heif_image_handle_release) \
    X(heif_image_release) \
    X(heif_image_set_raw_color_profile) \
    X(heif_nclx_color_profile_free)

#define TC_DE265_FUNCTIONS(X) \
    X(de265_get_bits_per_pixel) \
    X(de265_get_chroma_format) \
    X(de265_get_default_image_allocation_functions) \
    X(de265_get_image_plane_user_data) \
    X(de265_set_image_plane)

#define TC_FUNCTION_POINTER(name) __typeof__(name) *name;
extern struct tc_heif_functions { TC_HEIF_FUNCTIONS(TC_FUNCTION_POINTER) } tc_heif;
extern struct tc_de265_functions { TC_DE265_FUNCTIONS(TC_FUNCTION_POINTER) } tc_de265;
#undef TC_FUNCTION_POINTER

#endif
