    always @(posedge clk) begin
{% if !fine %}        if (rst || start) w_old <= 16'd0;
        else if (st_go && !aw_ext && !st_same_band) w_old <= w_out - {15'd0, b_beat};  // every burst now belongs to an earlier band
        else if (b_beat && w_old != 16'd0) w_old <= w_old - 16'd1;
{% endif %}        if (st_go) begin
            «sets»
        end
    end
