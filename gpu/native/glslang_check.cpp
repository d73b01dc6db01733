// glslang and SPIRV-Tools as libraries, for the independent checks of translated modules (gpu::cross::check):
// the same compilers `glslangValidator` and `spirv-val` are, run in process with the options the check gives those
// commands, so that a pass does not start a process per module and target. Built by gpu/build.rs only where
// Debian's static glslang and SPIRV-Tools archives and headers are present (otherwise the commands run).
//
// Nothing here reads or writes naga's output beyond the text handed in: these are Khronos' own front ends.

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <spirv-tools/libspirv.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::once_flag initialized;

void init() {
    std::call_once(initialized, [] { glslang::InitializeProcess(); });
}

char* copy(const std::string& s) {
    char* out = static_cast<char*>(std::malloc(s.size() + 1));
    if (out) std::memcpy(out, s.c_str(), s.size() + 1);
    return out;
}

// One reflected object, as glslangValidator's `-q` prints it (TObjectReflection::dump).
void dump(std::ostringstream& out, const glslang::TObjectReflection& o) {
    out << o.name << ": offset " << o.offset << ", type " << std::hex << o.glDefineType << std::dec << ", size "
        << o.size << ", index " << o.index << ", binding " << o.getBinding() << ", stages " << o.stages;
    if (o.counterIndex != -1) out << ", counter " << o.counterIndex;
    if (o.numMembers != -1) out << ", numMembers " << o.numMembers;
    if (o.arrayStride != 0) out << ", arrayStride " << o.arrayStride;
    if (o.topLevelArrayStride != 0) out << ", topLevelArrayStride " << o.topLevelArrayStride;
    out << "\n";
}

}  // namespace

extern "C" {

void gpu_check_free(void* p) { std::free(p); }

// OpenGL / OpenGL ES GLSL, as `glslangValidator -l -q --reflect-separate-buffers <file>`: compiled and linked with
// GL semantics (no SPIR-V), then reflected. Returns 0 and the reflection text in `*out`, or nonzero and the log.
int gpu_check_gl(const char* text, int stage, char** out) {
    init();
    const auto lang = static_cast<EShLanguage>(stage);
    glslang::TShader shader(lang);
    const char* strings[] = {text};
    const char* names[] = {"module"};
    shader.setStringsWithLengthsAndNames(strings, nullptr, names, 1);
    const auto messages = EShMsgDefault;
    std::string log;
    if (!shader.parse(GetDefaultResources(), 100, false, messages)) {
        log = std::string(shader.getInfoLog()) + shader.getInfoDebugLog();
        *out = copy(log);
        return 1;
    }
    glslang::TProgram program;
    program.addShader(&shader);
    if (!program.link(messages)) {
        log = std::string(program.getInfoLog()) + program.getInfoDebugLog();
        *out = copy(log);
        return 2;
    }
    program.buildReflection(EShReflectionSeparateBuffers);
    std::ostringstream r;
    r << "Uniform reflection:\n";
    for (int i = 0; i < program.getNumUniformVariables(); ++i) dump(r, program.getUniform(i));
    r << "\nUniform block reflection:\n";
    for (int i = 0; i < program.getNumUniformBlocks(); ++i) dump(r, program.getUniformBlock(i));
    r << "\nBuffer variable reflection:\n";
    for (int i = 0; i < program.getNumBufferVariables(); ++i) dump(r, program.getBufferVariable(i));
    r << "\nBuffer block reflection:\n";
    for (int i = 0; i < program.getNumBufferBlocks(); ++i) dump(r, program.getBufferBlock(i));
    *out = copy(r.str());
    return 0;
}

// HLSL, as `glslangValidator -D -V --target-env vulkan1.1 --hlsl-iomap --hlsl-offsets -S <stage> -e <entry>
// --shift-{texture,sampler,UBO,uav}-binding <shifts>`, then `spirv-val --target-env vulkan1.1` on the SPIR-V.
// Returns 0 with the SPIR-V in `*words`/`*count`; 1 (compile) or 2 (link) with glslang's log in `*log`; 3 with
// the validator's message in `*log`.
int gpu_check_hlsl(const char* text, int stage, const char* entry, const unsigned* shifts, unsigned** words,
                   size_t* count, char** log) {
    init();
    *words = nullptr;
    *count = 0;
    *log = nullptr;
    const auto lang = static_cast<EShLanguage>(stage);
    glslang::TShader shader(lang);
    const char* strings[] = {text};
    const char* names[] = {"module.hlsl"};
    shader.setStringsWithLengthsAndNames(strings, nullptr, names, 1);
    shader.setEntryPoint(entry);
    shader.setEnvInput(glslang::EShSourceHlsl, lang, glslang::EShClientVulkan, 100);
    shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_1);
    shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_3);
    shader.setHlslIoMapping(true);
    shader.setShiftBinding(glslang::EResTexture, shifts[0]);
    shader.setShiftBinding(glslang::EResSampler, shifts[1]);
    shader.setShiftBinding(glslang::EResUbo, shifts[2]);
    shader.setShiftBinding(glslang::EResUav, shifts[3]);
    const auto messages =
        static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules | EShMsgReadHlsl | EShMsgHlslOffsets);
    if (!shader.parse(GetDefaultResources(), 100, false, messages)) {
        *log = copy(std::string(shader.getInfoLog()) + shader.getInfoDebugLog());
        return 1;
    }
    glslang::TProgram program;
    program.addShader(&shader);
    if (!program.link(messages) || !program.mapIO()) {
        *log = copy(std::string(program.getInfoLog()) + program.getInfoDebugLog());
        return 2;
    }
    std::vector<unsigned> spirv;
    spv::SpvBuildLogger logger;
    glslang::SpvOptions options;
    options.disableOptimizer = false;  // as the command: HLSL is legalized by spirv-opt
    glslang::GlslangToSpv(*program.getIntermediate(lang), spirv, &logger, &options);
    const std::string messages_text = logger.getAllMessages();
    if (spirv.empty()) {
        *log = copy("glslang wrote no SPIR-V\n" + messages_text);
        return 2;
    }
    spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
    std::string invalid;
    tools.SetMessageConsumer([&invalid](spv_message_level_t, const char*, const spv_position_t& position,
                                        const char* message) {
        invalid += "error: " + std::to_string(position.index) + ": " + message + "\n";
    });
    if (!tools.Validate(spirv)) {
        *log = copy(invalid.empty() ? std::string("invalid SPIR-V\n") : invalid);
        return 3;
    }
    *count = spirv.size();
    *words = static_cast<unsigned*>(std::malloc(spirv.size() * sizeof(unsigned)));
    if (!*words) return 2;
    std::memcpy(*words, spirv.data(), spirv.size() * sizeof(unsigned));
    return 0;
}

}  // extern "C"
