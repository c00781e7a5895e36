#include "vta/driver/build_config.h"

#include "vta/hw_config.h"

namespace vta {

const Config& build_config() {
  static const Config config = [] {
    ConfigParams p;
    p.target = VTA_TARGET_NAME;
    p.hw_ver = VTA_HW_VER;
    p.log_inp_width = VTA_LOG_INP_WIDTH;
    p.log_wgt_width = VTA_LOG_WGT_WIDTH;
    p.log_acc_width = VTA_LOG_ACC_WIDTH;
    p.log_batch = VTA_LOG_BATCH;
    p.log_block = VTA_LOG_BLOCK;
    p.log_uop_buff_size = VTA_LOG_UOP_BUFF_SIZE;
    p.log_inp_buff_size = VTA_LOG_INP_BUFF_SIZE;
    p.log_wgt_buff_size = VTA_LOG_WGT_BUFF_SIZE;
    p.log_acc_buff_size = VTA_LOG_ACC_BUFF_SIZE;
    p.log_bus_width = VTA_LOG_BUS_WIDTH;
    p.hw_freq_mhz = VTA_HW_FREQ;
    return Config::make(p);
  }();
  return config;
}

}  // namespace vta
